#ifndef TERN_CMICROHTTPD_SHIM_H
#define TERN_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* MHD_start_daemon is variadic: Swift cannot call it. This wrapper takes the options as an array
   (MHD_OPTION_ARRAY), terminated by an MHD_OPTION_END entry. */
static inline struct MHD_Daemon *tern_mhd_start_daemon(
    unsigned int flags, uint16_t port, MHD_AccessHandlerCallback handler, void *handler_cls,
    struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/* An option item whose value is a function pointer (MHD_OPTION_NOTIFY_COMPLETED): the array form
   wants the function pointer cast to intptr_t, which Swift cannot spell. */
static inline struct MHD_OptionItem tern_mhd_option_notify_completed(
    MHD_RequestCompletedCallback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)callback, cls };
    return item;
}

/* The same for MHD_OPTION_NOTIFY_CONNECTION (a connection opened or closed). */
static inline struct MHD_OptionItem tern_mhd_option_notify_connection(
    MHD_NotifyConnectionCallback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)callback, cls };
    return item;
}

/* The connection's socket, or -1 (MHD_get_connection_info is variadic). */
static inline int tern_mhd_connection_fd(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* MHD_get_connection_info is variadic. Writes the client's address as text ("127.0.0.1") into
   buffer; returns 0 on success, -1 when the address is unknown or not IPv4/IPv6. */
static inline int tern_mhd_client_address(struct MHD_Connection *c, char *buffer, socklen_t length) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return -1;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        return inet_ntop(AF_INET, &v4->sin_addr, buffer, length) == NULL ? -1 : 0;
    }
    if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        return inet_ntop(AF_INET6, &v6->sin6_addr, buffer, length) == NULL ? -1 : 0;
    }
    return -1;
}
#endif
