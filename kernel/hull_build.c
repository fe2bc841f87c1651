/* Hull topology builder (stub: to be written). */
#include "hull.h"

size_t mink_hull_topology_bytes(uint32_t n)
{
    (void)n;
    return 0;
}

const hull_topology *mink_hull_topology_build(const float *x, const float *y, const float *z, uint32_t count,
                                              void *mem, size_t mem_bytes)
{
    (void)x, (void)y, (void)z, (void)count, (void)mem, (void)mem_bytes;
    return NULL;
}
