#ifndef TERN_CPOSTGRES_SHIM_H
#define TERN_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
