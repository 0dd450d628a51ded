// A C++ MPI program built by `clump mpicxx`: clump's mpi.h in C++ (its extern "C" guard),
// the standard library beside it, and a ring of messages with a C++ container as buffer.
#include <mpi.h>

#include <cstdio>
#include <numeric>
#include <vector>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> mine(4, rank), left(4, -1);
    MPI_Sendrecv(mine.data(), 4, MPI_INT, (rank + 1) % size, 7, left.data(), 4, MPI_INT,
                 (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int expect = 4 * ((rank + size - 1) % size);
    int got = std::accumulate(left.begin(), left.end(), 0);
    std::printf("%s\n", got == expect ? "cxx ring ok" : "cxx ring WRONG");
    MPI_Finalize();
    return got == expect ? 0 : 1;
}
