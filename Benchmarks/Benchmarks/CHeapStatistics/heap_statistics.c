#include "heap_statistics.h"

#if defined(__GLIBC__)
#include <malloc.h>

size_t heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#else
size_t heap_bytes_in_use(void) {
    return 0;
}
#endif
