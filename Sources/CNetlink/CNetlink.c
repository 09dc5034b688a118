#ifdef __linux__
#define _GNU_SOURCE
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include "CNetlink.h"

int cnetlink_enter_network_namespace(int fd) {
    return setns(fd, CLONE_NEWNET);
}

int cnetlink_wake_descriptor(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int cnetlink_set_receive_buffer(int fd, int bytes) {
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) == 0) {
        return 0;
    }
    return setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}
#endif
