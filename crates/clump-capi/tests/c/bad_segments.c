/* AM_SetSeg on memory that is not the program's readable and writable memory gets
 * AM_ERR_BAD_ARG, changes no protection, maps nothing, and keeps the segment it had. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

/* The permissions /proc/self/maps lists for the mapping holding addr, or "none". */
static const char *perms_of(const void *addr) {
    static char perms[5];
    FILE *f = fopen("/proc/self/maps", "r");
    EXPECT(f != NULL);
    unsigned long lo, hi;
    strcpy(perms, "none");
    while (fscanf(f, "%lx-%lx %4s%*[^\n]", &lo, &hi, perms) == 3) {
        if ((uintptr_t)addr >= lo && (uintptr_t)addr < hi) {
            fclose(f);
            return perms;
        }
    }
    fclose(f);
    strcpy(perms, "none");
    return perms;
}

static void refused(ep_t ep, void *addr, uintptr_t len, const char *what) {
    int rc = AM_SetSeg(ep, addr, len);
    if (rc != AM_ERR_BAD_ARG) {
        fprintf(stderr, "AM_SetSeg on %s returned %s, expected AM_ERR_BAD_ARG\n", what,
                clump_error_name(rc));
        clump_spmd_exit(1);
    }
}

int main(int argc, char **argv) {
    eb_t eb;
    ep_t ep;
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    long page = sysconf(_SC_PAGESIZE);
    static unsigned char good[1000];
    CHECK(AM_SetSeg(ep, good + 3, 500));

    unsigned char *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(none != MAP_FAILED && ro != MAP_FAILED && two != MAP_FAILED);
    EXPECT(munmap(two + page, page) == 0);

    refused(ep, none, 16, "PROT_NONE memory");
    refused(ep, none + 100, page - 100, "PROT_NONE memory at an offset");
    refused(ep, (void *)(uintptr_t)main, 64, "a code page");
    refused(ep, (void *)4096, 16, "address 4096");
    refused(ep, ro, 16, "PROT_READ memory");
    refused(ep, two + 100, page, "a range running past a mapping's end");
    refused(ep, good, UINTPTR_MAX - 10, "a range wrapping around");
    uintptr_t max;
    CHECK(AM_MaxSegLength(&max));
    refused(ep, two, max + 1, "more than AM_MaxSegLength");

    EXPECT(strcmp(perms_of(none), "---p") == 0);
    EXPECT(strcmp(perms_of(ro), "r--p") == 0);
    EXPECT(strcmp(perms_of(two + page), "none") == 0);
    EXPECT(strcmp(perms_of((void *)4096), "none") == 0);
    void *base;
    uintptr_t len;
    CHECK(AM_GetSeg(ep, &base, &len));
    EXPECT(base == good + 3 && len == 500);
    printf("bad segments ok\n");
    CHECK(AM_Terminate());
    return 0;
}
