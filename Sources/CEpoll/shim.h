#ifndef TERN_CEPOLL_SHIM_H
#define TERN_CEPOLL_SHIM_H
/* Swift's Glibc module leaves <sys/epoll.h> out; TernHTTP's event loop (Poller) reads it here. Linux only. */
#ifdef __linux__
#include <sys/epoll.h>
#endif
#endif
