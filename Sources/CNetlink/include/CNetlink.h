#ifndef C_NETLINK_H
#define C_NETLINK_H

// The Linux kernel's routing-netlink ABI (structures and constants) for the Reachability
// module. Swift imports the structures and plain constants; the few header macros that take
// arguments are not importable, so the values Reachability needs are restated below.

#ifdef __linux__
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/socket.h>

/// Moves the calling thread into the network namespace that `fd` refers to
/// (`setns(fd, CLONE_NEWNET)`). Returns 0, or -1 with errno set.
int cnetlink_enter_network_namespace(int fd);

/// A non-blocking, close-on-exec eventfd, used to wake the monitor thread. -1 with errno on failure.
int cnetlink_wake_descriptor(void);

/// Sets a socket's receive buffer, forcing the size beyond `rmem_max` when the process may
/// (`SO_RCVBUFFORCE`), else within it (`SO_RCVBUF`). Returns 0, or -1 with errno set.
int cnetlink_set_receive_buffer(int fd, int bytes);
#endif

#endif
