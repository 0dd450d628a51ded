/* All-to-one reduction: every rank sends a vector of LEN values (a medium message) and a
 * scalar (a short one) to rank 0, which sums them as they arrive and checks the totals.
 * Usage: clump run -n N ./reduce */
#include "check.h"

enum { H_VECTOR = 1, H_SCALAR = 2 };
#define LEN 1024

static eb_t eb;
static ep_t ep;
static int64_t sum[LEN], scalar_sum;
static int vectors, scalars;

static void vector(void *token, void *buf, size_t nbytes, int32_t from) {
    (void)token;
    (void)from;
    const int32_t *v = buf;
    EXPECT(nbytes == LEN * sizeof *v);
    for (int i = 0; i < LEN; i++) sum[i] += v[i];
    vectors++;
}
static void scalar(void *token, int32_t value) {
    (void)token;
    scalar_sum += value;
    scalars++;
}

int main(int argc, char **argv) {
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    int rank = clump_spmd_rank(), size = clump_spmd_size();
    CHECK(AM_SetHandler(ep, H_VECTOR, vector));
    CHECK(AM_SetHandler(ep, H_SCALAR, scalar));
    CHECK(clump_spmd_barrier());
    int32_t mine[LEN];
    for (int i = 0; i < LEN; i++) mine[i] = rank * i + 1;
    CHECK(AM_RequestI1(ep, 0, H_VECTOR, mine, sizeof mine, rank));
    CHECK(AM_Request1(ep, 0, H_SCALAR, rank * rank));
    if (rank == 0) {
        while (vectors < size || scalars < size) CHECK(AM_Poll(eb));
        int64_t ranks = (int64_t)size * (size - 1) / 2, squares = 0;
        for (int r = 0; r < size; r++) squares += r * r;
        for (int i = 0; i < LEN; i++) EXPECT(sum[i] == ranks * i + size);
        EXPECT(scalar_sum == squares);
        printf("reduce ok: %d ranks, sum of squares %lld\n", size, (long long)scalar_sum);
    }
    CHECK(clump_spmd_barrier());
    CHECK(AM_Terminate());
    return 0;
}
