#ifndef TERN_CPOSTGRES_SHIM_H
#define TERN_CPOSTGRES_SHIM_H
#include <libpq-fe.h>

/* Typed wrappers for what Swift cannot import from libpq-fe.h as it is: the diagnostic field codes
   are character macros, and a notice processor is a C function pointer. */

/* The SQLSTATE of a failed result ("23505"), or NULL. */
static inline const char *tern_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

/* The primary message of a failed result, without libpq's "ERROR:" prefix, or NULL. */
static inline const char *tern_pq_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}

/* The detail line of a failed result (which key collided), or NULL. */
static inline const char *tern_pq_detail(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL);
}

static void tern_pq_ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

/* Drops the server's NOTICE lines (e.g. "relation already exists, skipping") instead of printing them
   to stderr: the store reports what matters through its errors. */
static inline void tern_pq_silence_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, tern_pq_ignore_notice, NULL);
}

#endif
