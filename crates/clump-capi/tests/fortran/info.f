! Fixed-form mpif.h: MPI_INFO_GET and MPI_INFO_GET_STRING leave the
! program's CHARACTER alone where they return no value (a key not set,
! a length of 0 asked), as MPICH's infotest2f and infogetstrf check;
! and give the value, blank-padded, where they do. Each rank prints
! "info ok".
      program info
      implicit none
      include 'mpif.h'
      integer ierr, inf, buflen
      logical flag
      character*20 val
      call MPI_INIT(ierr)
      call MPI_INFO_CREATE(inf, ierr)
      call MPI_INFO_SET(inf, 'color', 'blue', ierr)
      val = 'untouched'
      call MPI_INFO_GET(inf, 'size', 20, val, flag, ierr)
      call check(.not. flag .and. val .eq. 'untouched', 'get: no key')
      call MPI_INFO_GET(inf, 'color', 20, val, flag, ierr)
      call check(flag .and. val .eq. 'blue', 'get: the value')
      val = 'untouched'
      buflen = 20
      call MPI_INFO_GET_STRING(inf, 'size', buflen, val, flag, ierr)
      call check(.not. flag .and. val .eq. 'untouched',
     &     'get_string: no key')
      buflen = 0
      call MPI_INFO_GET_STRING(inf, 'color', buflen, val, flag, ierr)
      call check(flag .and. buflen .eq. 4 .and. val .eq. 'untouched',
     &     'get_string: a length of 0')
      buflen = 20
      call MPI_INFO_GET_STRING(inf, 'color', buflen, val, flag, ierr)
      call check(flag .and. buflen .eq. 4 .and. val .eq. 'blue',
     &     'get_string: the value')
      call MPI_INFO_FREE(inf, ierr)
      call MPI_FINALIZE(ierr)
      print *, 'info ok'
      end

      include 'checkf.inc'
