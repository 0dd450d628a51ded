/* C <-> Fortran handle conversion for the MPI 5.0 standard ABI.
 *
 * The ABI's mpi.h has no MPI_Fint and no c2f/f2c functions: handles convert to int and
 * back with MPI_<Kind>_toint and MPI_<Kind>_fromint. This companion header, like the one
 * the MPI Forum publishes beside its reference mpi.h, gives programs written for the
 * classic names MPI_Fint and MPI_<Kind>_c2f/_f2c (and their PMPI_ names) over those
 * functions, and converts a status to its Fortran forms and back: mpif.h's and the mpi
 * module's eight integers (source, tag, error, then the five the library owns) and the
 * mpi_f08 module's TYPE(MPI_Status), MPI_F08_status here, which holds the same eight. */
#ifndef CLUMP_MPI_FORTRAN_H
#define CLUMP_MPI_FORTRAN_H

#include <mpi.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fortran's default INTEGER; a build for -fdefault-integer-8 defines MPI_ABI_Fint first. */
#ifndef MPI_ABI_Fint
#define MPI_ABI_Fint int
#endif
typedef MPI_ABI_Fint MPI_Fint;

/* A status in Fortran's form, as MPI_Status_c2f writes it and MPI_Status_f2c reads it. */
static inline int clump_status_to_fortran(const MPI_Status *c_status, MPI_Fint *f_status) {
    enum { OWNED = sizeof c_status->MPI_internal / sizeof c_status->MPI_internal[0] };
    f_status[0] = (MPI_Fint)c_status->MPI_SOURCE;
    f_status[1] = (MPI_Fint)c_status->MPI_TAG;
    f_status[2] = (MPI_Fint)c_status->MPI_ERROR;
    for (int i = 0; i < OWNED; i++) f_status[3 + i] = (MPI_Fint)c_status->MPI_internal[i];
    return MPI_SUCCESS;
}

static inline int clump_status_from_fortran(const MPI_Fint *f_status, MPI_Status *c_status) {
    enum { OWNED = sizeof c_status->MPI_internal / sizeof c_status->MPI_internal[0] };
    c_status->MPI_SOURCE = (int)f_status[0];
    c_status->MPI_TAG = (int)f_status[1];
    c_status->MPI_ERROR = (int)f_status[2];
    for (int i = 0; i < OWNED; i++) c_status->MPI_internal[i] = (int)f_status[3 + i];
    return MPI_SUCCESS;
}

/* mpi_f08's TYPE(MPI_Status). */
typedef struct {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint MPI_internal[5];
} MPI_F08_status;

static inline int clump_status_to_f08(const MPI_Status *c_status, MPI_F08_status *f08_status) {
    return clump_status_to_fortran(c_status, &f08_status->MPI_SOURCE);
}

static inline int clump_status_from_f08(const MPI_F08_status *f08_status, MPI_Status *c_status) {
    return clump_status_from_fortran(&f08_status->MPI_SOURCE, c_status);
}

static inline int clump_status_f_to_f08(const MPI_Fint *f_status, MPI_F08_status *f08_status) {
    memcpy(f08_status, f_status, sizeof *f08_status);
    return MPI_SUCCESS;
}

static inline int clump_status_f08_to_f(const MPI_F08_status *f08_status, MPI_Fint *f_status) {
    memcpy(f_status, f08_status, sizeof *f08_status);
    return MPI_SUCCESS;
}

/* Fortran's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, for C code handed a Fortran status:
 * COMMON blocks the library defines, the same in mpif.h and both modules. */
extern MPI_Fint mpi_fortran_status_ignore_[];
extern MPI_Fint mpi_fortran_statuses_ignore_[];
#define MPI_F_STATUS_IGNORE     ((MPI_Fint *)mpi_fortran_status_ignore_)
#define MPI_F_STATUSES_IGNORE   ((MPI_Fint *)mpi_fortran_statuses_ignore_)
#define MPI_F08_STATUS_IGNORE   ((MPI_F08_status *)mpi_fortran_status_ignore_)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)mpi_fortran_statuses_ignore_)

#define MPI_Status_c2f08    clump_status_to_f08
#define MPI_Status_f082c    clump_status_from_f08
#define MPI_Status_f2f08    clump_status_f_to_f08
#define MPI_Status_f082f    clump_status_f08_to_f
#define PMPI_Status_c2f08   clump_status_to_f08
#define PMPI_Status_f082c   clump_status_from_f08
#define PMPI_Status_f2f08   clump_status_f_to_f08
#define PMPI_Status_f082f   clump_status_f08_to_f

#define MPI_Comm_c2f        MPI_Comm_toint
#define MPI_Errhandler_c2f  MPI_Errhandler_toint
#define MPI_File_c2f        MPI_File_toint
#define MPI_Group_c2f       MPI_Group_toint
#define MPI_Info_c2f        MPI_Info_toint
#define MPI_Message_c2f     MPI_Message_toint
#define MPI_Op_c2f          MPI_Op_toint
#define MPI_Request_c2f     MPI_Request_toint
#define MPI_Session_c2f     MPI_Session_toint
#define MPI_Type_c2f        MPI_Type_toint
#define MPI_Win_c2f         MPI_Win_toint
#define MPI_Status_c2f      clump_status_to_fortran

#define MPI_Comm_f2c        MPI_Comm_fromint
#define MPI_Errhandler_f2c  MPI_Errhandler_fromint
#define MPI_File_f2c        MPI_File_fromint
#define MPI_Group_f2c       MPI_Group_fromint
#define MPI_Info_f2c        MPI_Info_fromint
#define MPI_Message_f2c     MPI_Message_fromint
#define MPI_Op_f2c          MPI_Op_fromint
#define MPI_Request_f2c     MPI_Request_fromint
#define MPI_Session_f2c     MPI_Session_fromint
#define MPI_Type_f2c        MPI_Type_fromint
#define MPI_Win_f2c         MPI_Win_fromint
#define MPI_Status_f2c      clump_status_from_fortran

#define PMPI_Comm_c2f       PMPI_Comm_toint
#define PMPI_Errhandler_c2f PMPI_Errhandler_toint
#define PMPI_File_c2f       PMPI_File_toint
#define PMPI_Group_c2f      PMPI_Group_toint
#define PMPI_Info_c2f       PMPI_Info_toint
#define PMPI_Message_c2f    PMPI_Message_toint
#define PMPI_Op_c2f         PMPI_Op_toint
#define PMPI_Request_c2f    PMPI_Request_toint
#define PMPI_Session_c2f    PMPI_Session_toint
#define PMPI_Type_c2f       PMPI_Type_toint
#define PMPI_Win_c2f        PMPI_Win_toint
#define PMPI_Status_c2f     clump_status_to_fortran

#define PMPI_Comm_f2c       PMPI_Comm_fromint
#define PMPI_Errhandler_f2c PMPI_Errhandler_fromint
#define PMPI_File_f2c       PMPI_File_fromint
#define PMPI_Group_f2c      PMPI_Group_fromint
#define PMPI_Info_f2c       PMPI_Info_fromint
#define PMPI_Message_f2c    PMPI_Message_fromint
#define PMPI_Op_f2c         PMPI_Op_fromint
#define PMPI_Request_f2c    PMPI_Request_fromint
#define PMPI_Session_f2c    PMPI_Session_fromint
#define PMPI_Type_f2c       PMPI_Type_fromint
#define PMPI_Win_f2c        PMPI_Win_fromint
#define PMPI_Status_f2c     clump_status_from_fortran

#ifdef __cplusplus
}
#endif

#endif /* CLUMP_MPI_FORTRAN_H */
