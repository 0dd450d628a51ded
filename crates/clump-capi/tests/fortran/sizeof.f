! Fixed-form mpif.h: MPI_SIZEOF on scalars and arrays of each numeric
! kind, checked against MPI_TYPE_SIZE of the matching datatype, and a
! session through INTEGER handles. Each rank prints "sizeof ok".
      program sizeof
      implicit none
      include 'mpif.h'
      integer ierr, sz(8), tsz, session, n, grp, np, i, types(8)
      character*10 names(8)
      integer*1 i1(3)
      integer*2 i2
      integer*4 i4(2, 2)
      integer*8 i8
      real*4 r4
      real*8 r8(5)
      complex*8 c8
      complex*16 c16(2)
      data names /'integer*1', 'integer*2', 'integer*4', 'integer*8',
     &     'real*4', 'real*8', 'complex*8', 'complex*16'/
      call MPI_INIT(ierr)
      types(1) = MPI_INTEGER1
      types(2) = MPI_INTEGER2
      types(3) = MPI_INTEGER4
      types(4) = MPI_INTEGER8
      types(5) = MPI_REAL4
      types(6) = MPI_REAL8
      types(7) = MPI_COMPLEX8
      types(8) = MPI_COMPLEX16
      call MPI_SIZEOF(i1, sz(1), ierr)
      call check(ierr .eq. MPI_SUCCESS, 'sizeof ierror')
      call MPI_SIZEOF(i2, sz(2), ierr)
      call MPI_SIZEOF(i4, sz(3), ierr)
      call MPI_SIZEOF(i8, sz(4), ierr)
      call MPI_SIZEOF(r4, sz(5), ierr)
      call MPI_SIZEOF(r8, sz(6), ierr)
      call MPI_SIZEOF(c8, sz(7), ierr)
      call MPI_SIZEOF(c16, sz(8), ierr)
      do i = 1, 8
         call MPI_TYPE_SIZE(types(i), tsz, ierr)
         call check(sz(i) .eq. tsz, names(i))
      end do
      call MPI_SESSION_INIT(MPI_INFO_NULL, MPI_ERRORS_RETURN, session,
     &     ierr)
      call check(ierr .eq. MPI_SUCCESS .and.
     &     session .ne. MPI_SESSION_NULL, 'session_init')
      call MPI_SESSION_GET_NUM_PSETS(session, MPI_INFO_NULL, n, ierr)
      call check(n .ge. 2, 'get_num_psets')
      call MPI_GROUP_FROM_SESSION_PSET(session, 'mpi://SELF', grp, ierr)
      call MPI_GROUP_SIZE(grp, np, ierr)
      call check(np .eq. 1, 'mpi://SELF')
      call MPI_GROUP_FREE(grp, ierr)
      call MPI_SESSION_FINALIZE(session, ierr)
      call check(session .eq. MPI_SESSION_NULL, 'session_finalize')
      call MPI_FINALIZE(ierr)
      print *, 'sizeof ok'
      end

      include 'checkf.inc'
