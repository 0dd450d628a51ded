! Fixed-form mpif.h: MPI_INFO_GET and MPI_INFO_GET_STRING leave the
! program's CHARACTER alone where they return no value (a key not set,
! a length of 0 asked), as MPICH's infotest2f and infogetstrf check;
! and give the value, blank-padded, where they do. Each rank prints
! "info ok". MPI_INFO_SET strips leading and trailing blanks of key and
! value, as the standard says for Fortran, and the key arguments of the
! queries and MPI_INFO_DELETE name the key so stripped.
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
      call MPI_INFO_SET(inf, '  shape ', '   round  ', ierr)
      call MPI_INFO_GET_NTHKEY(inf, 1, val, ierr)
      call check(val .eq. 'shape', 'set: the key stripped')
      call MPI_INFO_GET(inf, 'shape', 20, val, flag, ierr)
      call check(flag .and. val .eq. 'round', 'set: the value stripped')
      call MPI_INFO_GET_VALUELEN(inf, ' shape', buflen, flag, ierr)
      call check(flag .and. buflen .eq. 5, 'get_valuelen: key blanks')
      call MPI_INFO_GET(inf, ' shape', 20, val, flag, ierr)
      call check(flag .and. val .eq. 'round', 'get: key blanks')
      buflen = 20
      call MPI_INFO_GET_STRING(inf, '   shape', buflen, val, flag, ierr)
      call check(flag .and. buflen .eq. 5 .and. val .eq. 'round',
     &     'get_string: key blanks')
      call MPI_INFO_DELETE(inf, ' shape', ierr)
      call check(ierr .eq. MPI_SUCCESS, 'delete: key blanks')
      call MPI_INFO_GET_NKEYS(inf, buflen, ierr)
      call check(buflen .eq. 1, 'delete: the key gone')
      call MPI_INFO_FREE(inf, ierr)
      call MPI_FINALIZE(ierr)
      print *, 'info ok'
      end

      include 'checkf.inc'
