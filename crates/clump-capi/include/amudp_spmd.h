/* amudp_spmd.h: the name AMUDP programs include (`#include <amudp_spmd.h>`); clump's
 * AMUDP SPMD calls live in clump/amudp_spmd.h, which this brings in. */
#include <clump/amudp_spmd.h>
