! The `mpi` module's TYPE(MPI_Status) and handle types: a received status converted to
! mpi_f08's form and back with MPI_Status_f2f08 / MPI_Status_f082f, its count still
! right; MPI_Sizeof through the module. Each rank prints "conversions ok".
program conversions
  use mpi
  implicit none
  integer :: ierr, rank, np, next, prev, count, sz, buf(3), got(3)
  integer :: st(MPI_STATUS_SIZE), back(MPI_STATUS_SIZE)
  type(MPI_Status) :: st08
  type(MPI_Comm) :: world
  double precision :: d(4)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)
  buf = rank
  call MPI_Sendrecv(buf, 3, MPI_INTEGER, next, 7, got, 3, MPI_INTEGER, prev, 7, &
                    MPI_COMM_WORLD, st, ierr)
  call MPI_Status_f2f08(st, st08, ierr)
  call check(ierr == MPI_SUCCESS, 'status_f2f08')
  call check(st08%MPI_SOURCE == prev .and. st08%MPI_TAG == 7, 'f08 status fields')
  call check(st08%MPI_ERROR == st(MPI_ERROR), 'f08 status error')
  call MPI_Status_f082f(st08, back, ierr)
  call check(ierr == MPI_SUCCESS .and. all(back == st), 'status_f082f')
  call MPI_Get_count(back, MPI_INTEGER, count, ierr)
  call check(count == 3, 'count after the round trip')
  world%MPI_VAL = MPI_COMM_WORLD
  call check(world == world .and. .not. (world /= world), 'handle type comparison')
  call MPI_Sizeof(d, sz, ierr)
  call check(ierr == MPI_SUCCESS .and. sz == 8, 'sizeof')
  call MPI_Sizeof(count, sz, ierr)
  call check(sz == 4, 'sizeof integer')
  call MPI_Finalize(ierr)
  print '(a)', 'conversions ok'
contains
  include 'check.inc'
end program conversions
