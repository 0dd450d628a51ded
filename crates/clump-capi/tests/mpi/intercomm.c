/* Intercommunicators: created from the two halves of world, point-to-point across
 * them (ranks name the other group), a dup, a split, a create, the remote-group queries and a
 * merge in both orders; on one process, the queries' answers for an intracommunicator. */
#include "check.h"

/* Every rank of one side sends its world rank to each rank of the other; each checks
 * what it gets and whose it is. */
static void exchange(MPI_Comm inter, const int *remote_world)
{
    int rank, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_remote_size(inter, &rsize);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Request reqs[64];
    for (int r = 0; r < rsize; r++)
        CHECK_OK(MPI_Isend(&me, 1, MPI_INT, r, 7, inter, &reqs[r]));
    for (int i = 0; i < rsize; i++) {
        int got;
        MPI_Status st;
        CHECK_OK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 7, inter, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize);
        CHECK(got == remote_world[st.MPI_SOURCE]);
    }
    CHECK_OK(MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, flag = -1, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    CHECK_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0);
    int eclass;
    MPI_Error_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), &eclass);
    CHECK(eclass == MPI_ERR_COMM);

    if (size >= 2) {
        /* Lower half (left) and upper half; leaders are world ranks 0 and size/2. */
        int left = rank < size / 2;
        MPI_Comm local, inter, dup, merged;
        CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, left, rank, &local));
        int rleader = left ? size / 2 : 0;
        CHECK_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rleader, 99, &inter));
        CHECK_OK(MPI_Comm_test_inter(inter, &flag));
        CHECK(flag == 1);
        int lsize, rsize, irank;
        MPI_Comm_size(inter, &lsize);
        MPI_Comm_rank(inter, &irank);
        CHECK_OK(MPI_Comm_remote_size(inter, &rsize));
        CHECK(lsize == (left ? size / 2 : size - size / 2));
        CHECK(rsize == size - lsize);
        CHECK(irank == (left ? rank : rank - size / 2));

        int remote_world[64];
        for (int r = 0; r < rsize; r++)
            remote_world[r] = left ? size / 2 + r : r;
        MPI_Group rgroup, wgroup;
        CHECK_OK(MPI_Comm_remote_group(inter, &rgroup));
        MPI_Group_size(rgroup, &n);
        CHECK(n == rsize);
        MPI_Comm_group(MPI_COMM_WORLD, &wgroup);
        int ranks[64], inworld[64];
        for (int r = 0; r < rsize; r++)
            ranks[r] = r;
        MPI_Group_translate_ranks(rgroup, rsize, ranks, wgroup, inworld);
        for (int r = 0; r < rsize; r++)
            CHECK(inworld[r] == remote_world[r]);
        MPI_Group_free(&rgroup);
        MPI_Group_free(&wgroup);

        exchange(inter, remote_world);
        CHECK_OK(MPI_Comm_dup(inter, &dup));
        CHECK_OK(MPI_Comm_test_inter(dup, &flag));
        CHECK(flag == 1);
        exchange(dup, remote_world);

        /* Split by world parity: each color pairs its members on both sides; a color
         * one side lacks gives MPI_COMM_NULL. */
        MPI_Comm part;
        CHECK_OK(MPI_Comm_split(inter, rank % 2, -rank, &part));
        int mine = 0, other = 0;
        for (int r = 0; r < size; r++) {
            if (r % 2 != rank % 2)
                continue;
            if ((r < size / 2) == left)
                mine++;
            else
                other++;
        }
        if (other == 0) {
            CHECK(part == MPI_COMM_NULL);
        } else {
            CHECK_OK(MPI_Comm_test_inter(part, &flag));
            CHECK(flag == 1);
            int psize, prsize, prank, got;
            MPI_Comm_size(part, &psize);
            MPI_Comm_remote_size(part, &prsize);
            MPI_Comm_rank(part, &prank);
            CHECK(psize == mine && prsize == other);
            /* Keys are -rank: the highest world rank of the color comes first. */
            int above = 0;
            for (int r = rank + 2; r < size; r += 2)
                if ((r < size / 2) == left)
                    above++;
            CHECK(prank == above);
            /* The first of each side swap world ranks. */
            if (prank == 0) {
                CHECK_OK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 4, &got, 1, MPI_INT, 0, 4, part,
                                      MPI_STATUS_IGNORE));
                CHECK(got % 2 == rank % 2 && (got < size / 2) != left);
            }
            MPI_Comm_free(&part);
        }

        /* Create from each side's first member only: a 1-to-1 intercommunicator. */
        MPI_Group lg, first;
        MPI_Comm_group(inter, &lg);
        int zero = 0;
        MPI_Group_incl(lg, 1, &zero, &first);
        CHECK_OK(MPI_Comm_create(inter, first, &part));
        if (irank == 0) {
            int got;
            MPI_Comm_remote_size(part, &n);
            CHECK(n == 1);
            CHECK_OK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, part,
                                  MPI_STATUS_IGNORE));
            CHECK(got == (left ? size / 2 : 0));
            MPI_Comm_free(&part);
        } else {
            CHECK(part == MPI_COMM_NULL);
        }
        MPI_Group_free(&first);
        MPI_Group_free(&lg);

        /* A collective on an intercommunicator runs between the two groups (intercoll.c
         * checks them all); a scan, which MPI defines on intracommunicators only, is
         * refused, never run on one side. */
        CHECK_OK(MPI_Barrier(inter));
        int scanned;
        MPI_Error_class(MPI_Scan(&rank, &scanned, 1, MPI_INT, MPI_SUM, inter), &eclass);
        CHECK(eclass == MPI_ERR_COMM);

        /* The upper half asks to come first: it does. */
        CHECK_OK(MPI_Intercomm_merge(inter, left, &merged));
        CHECK_OK(MPI_Comm_test_inter(merged, &flag));
        CHECK(flag == 0);
        int mrank, msize;
        MPI_Comm_rank(merged, &mrank);
        MPI_Comm_size(merged, &msize);
        CHECK(msize == size);
        CHECK(mrank == (left ? rank + (size - size / 2) : rank - size / 2));
        int sum = 0;
        CHECK_OK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
        CHECK(sum == size * (size - 1) / 2);
        MPI_Comm_free(&merged);

        /* Both pass the same: the side whose leader is world rank 0 comes first. */
        CHECK_OK(MPI_Intercomm_merge(dup, 0, &merged));
        MPI_Comm_rank(merged, &mrank);
        CHECK(mrank == rank);
        MPI_Comm_free(&merged);

        MPI_Comm_free(&dup);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }
    MPI_Finalize();
    printf("intercomm ok\n");
    return 0;
}
