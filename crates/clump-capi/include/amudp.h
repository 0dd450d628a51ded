/* amudp.h: the name AMUDP programs include (`#include <amudp.h>`); clump's AMUDP names
 * live in clump/amudp.h, which this brings in. */
#include <clump/amudp.h>
