#ifndef TERN_CNGHTTP2_SHIM_H
#define TERN_CNGHTTP2_SHIM_H
/* libnghttp2: HTTP/2 framing, HPACK and flow control, with no I/O of its own. The APNs connection
   pool feeds it bytes read from TLS and writes what it produces, many frames per write. */
#include <nghttp2/nghttp2.h>
#endif
