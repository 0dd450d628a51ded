// A C++ OpenSHMEM program built by `clump oshc++`: clump's shmem.h in C++ (its extern "C"
// guard; the C11 generic names are C only) and an atomic sum on PE 0.
#include <shmem.h>

#include <cstdio>

static long total;

int main() {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_long_atomic_add(&total, me + 1, 0);
    shmem_barrier_all();
    long expect = static_cast<long>(npes) * (npes + 1) / 2;
    bool ok = me != 0 || total == expect;
    std::printf("%s\n", ok ? "cxx shmem ok" : "cxx shmem WRONG");
    shmem_finalize();
    return ok ? 0 : 1;
}
