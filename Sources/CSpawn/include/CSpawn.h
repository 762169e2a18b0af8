#ifndef TERN_CSPAWN_H
#define TERN_CSPAWN_H
#include <sys/types.h>

/// Starts the program at `path` with `argv` and `envp` (both NULL-terminated) and stores its id in
/// `pid`. `input`, `output` and `error` become its descriptors 0, 1 and 2 (-1 keeps the caller's);
/// every other descriptor is closed in the child, whatever its close-on-exec flag; `directory` (or
/// NULL) is its working directory; it runs in its own process group with no signal blocked (a thread of libdispatch blocks some,
/// and a child inherits its spawning thread's mask); ignored signals stay ignored, as with `Process`.
/// Returns 0, or the errno of what failed (an executable that cannot run included).
///
/// Why not Foundation's `Process`: on Linux its `run()` lists /proc/self/fd by copying each entry's
/// whole 256-byte `d_name`, which reads past glibc's directory buffer once a process has about 1,340
/// descriptors open, and crashes when the next page is unmapped.
int tern_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *directory,
               int input, int output, int error);

#endif
