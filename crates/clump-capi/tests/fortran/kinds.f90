! Fortran's 16-byte kinds through `use mpi`: INTEGER(16) (MPI_INTEGER16), REAL(16)
! (MPI_REAL16, binary128: sums that keep 2**-100, which a double or an x87 long double
! would lose) and COMPLEX(16) (MPI_COMPLEX32) in the reductions the standard allows on
! them; MPI_Type_match_size finds them; MPI_REAL2, a kind gfortran lacks, is refused with
! MPI_ERR_TYPE. Each rank prints "kinds ok"; a failed check stops it.
program kinds
  use mpi
  implicit none
  integer :: ierr, rank, np, t, sz, class
  integer(kind=16) :: i16(2), i16r(2)
  real(kind=16) :: r16(3), r16r(3), tiny
  complex(kind=16) :: c16, c16r
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  i16 = [2_16**100 + rank, int(rank + 1, 16)]
  call MPI_Allreduce(i16, i16r, 2, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(i16r(1) == np * 2_16**100 + np * (np - 1) / 2, 'integer16 sum')
  call MPI_Allreduce(i16, i16r, 2, MPI_INTEGER16, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(i16r(2) == np, 'integer16 max')
  call MPI_Allreduce(i16, i16r, 2, MPI_INTEGER16, MPI_BOR, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'integer16 bor')

  tiny = 2.0_16**(-100)
  r16 = [1.0_16 + rank * tiny, real(rank + 1, 16), real(rank + 1, 16)]
  call MPI_Allreduce(r16, r16r, 3, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(r16r(1) - np == tiny * (np * (np - 1) / 2), 'real16 sum keeps 2**-100')
  call MPI_Allreduce(r16, r16r, 3, MPI_REAL16, MPI_MIN, MPI_COMM_WORLD, ierr)
  call check(r16r(1) == 1.0_16 .and. r16r(2) == 1.0_16, 'real16 min')
  call MPI_Allreduce(r16, r16r, 3, MPI_REAL16, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(r16r(1) == 1.0_16 + (np - 1) * tiny, 'real16 max')
  call MPI_Allreduce(r16(2:2), r16r(2:2), 1, MPI_REAL16, MPI_PROD, MPI_COMM_WORLD, ierr)
  call check(r16r(2) == product([(real(t, 16), t = 1, np)]), 'real16 prod')

  c16 = cmplx(1.0_16, rank * tiny, kind=16)
  call MPI_Allreduce(c16, c16r, 1, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(real(c16r) == np .and. aimag(c16r) == tiny * (np * (np - 1) / 2), 'complex32 sum')
  c16 = cmplx(0.0_16, 1.0_16, kind=16)
  call MPI_Allreduce(c16, c16r, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD, ierr)
  call check(c16r == (0.0_16, 1.0_16)**np, 'complex32 prod')

  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Allreduce(c16, c16r, 1, MPI_COMPLEX32, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, class, ierr)
  call check(class == MPI_ERR_OP, 'no order on complex32')
  call MPI_Type_size(MPI_REAL2, sz, ierr)
  call check(ierr == MPI_ERR_TYPE, 'real2 refused')
  call MPI_Type_size(MPI_COMPLEX32, sz, ierr)
  call check(sz == 32, 'complex32 size')
  call MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, t, ierr)
  call check(t == MPI_REAL16, 'match_size real 16')
  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, t, ierr)
  call check(t == MPI_INTEGER16, 'match_size integer 16')
  print '(a)', 'kinds ok'
  call MPI_Finalize(ierr)
contains
  include 'check.inc'
end program kinds
