! Fixed-form MPI through mpif.h: point-to-point, collectives on the
! Fortran datatypes (with their reductions), a split communicator and a
! vector datatype. Each rank prints "fixed ok"; a failed check stops it.
      program fixed
      implicit none
      include 'mpif.h'
      integer ierr, rank, np, i, next, prev, sub, srank, vec, sz
      integer status(MPI_STATUS_SIZE), ibuf(4), isum(4)
      integer*8 big, bigsum
      real r2(2), r2max(2)
      double precision d, dsum, d2(2), d2min(2), grid(3, 4)
      complex z, zprod
      double complex dz, dzsum
      logical l, land, flag
      character*8 word
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
      next = mod(rank + 1, np)
      prev = mod(rank + np - 1, np)
! A ring of INTEGERs, the status read in Fortran's indices.
      do i = 1, 4
         ibuf(i) = rank * 10 + i
      end do
      call MPI_SENDRECV_REPLACE(ibuf, 4, MPI_INTEGER, next, 3, prev,
     &     3, MPI_COMM_WORLD, status, ierr)
      call check(ibuf(2) .eq. prev * 10 + 2, 'sendrecv data')
      call check(status(MPI_SOURCE) .eq. prev, 'status source')
      call check(status(MPI_TAG) .eq. 3, 'status tag')
      call MPI_GET_COUNT(status, MPI_INTEGER, i, ierr)
      call check(i .eq. 4, 'get_count')
      call MPI_IPROBE(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, flag,
     &     MPI_STATUS_IGNORE, ierr)
      call check(.not. flag, 'iprobe finds nothing')
! Reductions on each Fortran type.
      call MPI_ALLREDUCE(ibuf, isum, 4, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call check(isum(1) .eq. 10 * np * (np - 1) / 2 + np, 'int sum')
      big = 3000000000_8 + rank
      call MPI_ALLREDUCE(big, bigsum, 1, MPI_INTEGER8, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      call check(bigsum .eq. 3000000000_8 + np - 1, 'integer8 max')
      d = 0.5d0 * (rank + 1)
      call MPI_REDUCE(d, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) call check(dsum .eq. 0.25d0 * np * (np + 1),
     &     'double precision sum')
      z = (0.0, 1.0)
      call MPI_ALLREDUCE(z, zprod, 1, MPI_COMPLEX, MPI_PROD,
     &     MPI_COMM_WORLD, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'complex prod')
      call check(abs(zprod - (0.0, 1.0) ** np) .lt. 1e-6, 'i ** np')
      dz = dcmplx(rank, 1)
      call MPI_ALLREDUCE(dz, dzsum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call check(dzsum .eq. dcmplx(np * (np - 1) / 2, np), 'dz sum')
      l = rank .ge. 0
      call MPI_ALLREDUCE(l, land, 1, MPI_LOGICAL, MPI_LAND,
     &     MPI_COMM_WORLD, ierr)
      call check(land, 'logical and')
      r2(1) = real(mod(rank, 2))
      r2(2) = real(rank)
      call MPI_ALLREDUCE(r2, r2max, 1, MPI_2REAL, MPI_MAXLOC,
     &     MPI_COMM_WORLD, ierr)
      call check(ierr .eq. MPI_SUCCESS, '2real maxloc')
      call check(r2max(2) .eq. min(1, np - 1), '2real index')
      d2(1) = -dble(rank)
      d2(2) = dble(rank)
      call MPI_ALLREDUCE(d2, d2min, 1, MPI_2DOUBLE_PRECISION,
     &     MPI_MINLOC, MPI_COMM_WORLD, ierr)
      call check(d2min(2) .eq. np - 1, '2double precision minloc')
      call MPI_TYPE_SIZE(MPI_INTEGER8, sz, ierr)
      call check(sz .eq. 8, 'size of integer8')
      word = 'none'
      if (rank .eq. 0) word = 'fortran'
      call MPI_BCAST(word, 8, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
      call check(word .eq. 'fortran', 'character bcast')
! In place, as Fortran names it.
      isum = 1
      call MPI_ALLREDUCE(MPI_IN_PLACE, isum, 4, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call check(isum(4) .eq. np, 'in place')
! A communicator of the even and of the odd ranks.
      call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), rank, sub,
     &     ierr)
      call MPI_COMM_RANK(sub, srank, ierr)
      call check(srank .eq. rank / 2, 'split rank')
      call MPI_COMM_FREE(sub, ierr)
      call check(sub .eq. MPI_COMM_NULL, 'freed')
! A row of a column-major array: a vector of stride 3.
      call MPI_TYPE_VECTOR(4, 1, 3, MPI_DOUBLE_PRECISION, vec, ierr)
      call MPI_TYPE_COMMIT(vec, ierr)
      grid = -1
      if (rank .eq. 0) then
         do i = 1, 4
            grid(2, i) = i
         end do
      end if
      call MPI_BCAST(grid(2, 1), 1, vec, 0, MPI_COMM_WORLD, ierr)
      call check(grid(2, 4) .eq. 4 .and. grid(1, 4) .eq. -1, 'vector')
      call MPI_TYPE_FREE(vec, ierr)
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      print *, 'fixed ok'
      call MPI_FINALIZE(ierr)
      end

      include 'checkf.inc'
