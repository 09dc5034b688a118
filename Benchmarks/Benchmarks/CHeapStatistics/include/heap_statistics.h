#ifndef HEAP_STATISTICS_H
#define HEAP_STATISTICS_H

#include <stddef.h>

/// Bytes of heap in use across every malloc arena, mmapped blocks included (glibc's mallinfo2);
/// 0 where glibc is not the allocator.
size_t heap_bytes_in_use(void);

#endif
