#ifndef TERN_CMICROHTTPD_SHIM_H
#define TERN_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon is variadic: Swift cannot call it. This wrapper takes the options as an array
   (MHD_OPTION_ARRAY), terminated by an MHD_OPTION_END entry. */
static inline struct MHD_Daemon *tern_mhd_start_daemon(
    unsigned int flags, uint16_t port, MHD_AccessHandlerCallback handler, void *handler_cls,
    struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/* MHD_get_connection_values takes a callback with an iterator; a header lookup is simpler. */
static inline const char *tern_mhd_header(struct MHD_Connection *c, const char *key) {
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, key);
}
#endif
