/* clump_error_name / clump_error_desc for every code, clump_status_name / _desc, and clump_spmd_error after a
 * successful start-up. */
#include <stdio.h>
#include <string.h>
#include "check.h"

int main(int argc, char **argv) {
    eb_t eb; ep_t ep;
    CHECK(clump_spmd_startup(&argc, &argv, &eb, &ep));
    EXPECT(clump_spmd_error() == NULL);
    EXPECT(strcmp(clump_error_name(AM_OK), "AM_OK") == 0);
    EXPECT(strcmp(clump_error_name(AM_ERR_BAD_ARG), "AM_ERR_BAD_ARG") == 0);
    EXPECT(strcmp(clump_error_desc(AM_ERR_BAD_ARG), "an argument is invalid") == 0);
    EXPECT(strcmp(clump_error_name(AM_ERR_IN_USE), "AM_ERR_IN_USE") == 0);
    EXPECT(strcmp(clump_error_name(-7), "AM_ERR_UNKNOWN") == 0);
    EXPECT(strcmp(clump_status_name(EUNREACHABLE), "EUNREACHABLE") == 0);
    EXPECT(strcmp(clump_status_name(EOUTCOMEUNKNOWN), "EOUTCOMEUNKNOWN") == 0);
    EXPECT(strstr(clump_status_desc(EOUTCOMEUNKNOWN), "may have run") != NULL);
    EXPECT(strcmp(clump_status_name(0), "E_UNKNOWN") == 0);
    /* A real failure through a real call: translation 4000 is not mapped. */
    int rc = AM_Request1(ep, 4000, 1, 0);
    printf("AM_Request1 to translation 4000: %s (%s)\n", clump_error_name(rc),
           clump_error_desc(rc));
    EXPECT(rc == AM_ERR_BAD_ARG);
    CHECK(AM_Terminate());
    printf("error_text ok\n");
    return 0;
}
