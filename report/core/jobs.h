/* jobs.h - independent jobs spread over the online CPUs.
 *
 * Symbolization is per DSO and each DSO has its own Dwfl, so DSOs can be read at the same
 * time: a large separate debug file (libc's, zlib-compressed) then costs no wall time beside
 * the main program's own DWARF.
 */
#ifndef HWPROF_REPORT_JOBS_H
#define HWPROF_REPORT_JOBS_H

#include <stddef.h>

/* Calls FN(CTX, j) once for every j in [0, NJOBS), lower j first, on up to one thread per
 * online CPU (at most 8; the calling thread is one of them). Jobs must not depend on each
 * other; FN reports its errors through CTX. Returns when every job is done. Falls back to
 * the calling thread alone when a thread cannot be created. */
void jobs_run(size_t njobs, void (*fn)(void *ctx, size_t job), void *ctx);

#endif
