! mpi_f08 with array sections as buffers (MPI_SUBARRAYS_SUPPORTED is .false.): a blocking
! call takes a strided section through a contiguous copy, as the mpi module's callers get
! from the compiler; a call that keeps its buffer refuses one with MPI_ERR_BUFFER through
! the communicator's error handler. And the profiling interface: this program's own
! MPI_Barrier_f08 takes the place of the library's and reaches it through PMPI_Barrier.
! Each rank prints "sections ok"; a failed check stops it.
program sections
  use mpi_f08
  implicit none
  integer :: rank, np, i, ierror, barriers, handled
  common /counts/ barriers, handled
  integer :: x(10), y(10), grid(4, 3), sums(3)
  type(MPI_Comm) :: dup
  type(MPI_Request) :: req
  type(MPI_Errhandler) :: eh
  type(MPI_Status) :: st
  integer :: f_status(MPI_STATUS_SIZE), sz
  real(kind=8) :: d(3)
  external :: on_error
  barriers = 0
  handled = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)

  ! A strided section sent and received in place.
  x = [(100 * rank + i, i = 1, 10)]
  y = -1
  call MPI_Sendrecv(x(1:10:2), 5, MPI_INTEGER, mod(rank + 1, np), 1, &
                    y(2:10:2), 5, MPI_INTEGER, mod(rank + np - 1, np), 1, MPI_COMM_WORLD, st)
  call check(all(y(2:10:2) == [(100 * mod(rank + np - 1, np) + i, i = 1, 9, 2)]), 'strided receive')
  call check(all(y(1:9:2) == -1), 'elements between untouched')
  call check(st%MPI_SOURCE == mod(rank + np - 1, np), 'status')

  ! A row of a matrix (stride 4) in a reduction.
  grid = rank + 1
  call MPI_Allreduce(grid(2, :), sums, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(sums == np * (np + 1) / 2), 'row allreduce')
  call MPI_Bcast(grid(1, :), 3, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(all(grid(1, :) == 1) .and. all(grid(2, :) == rank + 1), 'row bcast')

  ! A call that keeps its buffer refuses a section, through the handler.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
  call MPI_Isend(x(1:10:2), 5, MPI_INTEGER, rank, 2, dup, req, ierror)
  call check(ierror == MPI_ERR_BUFFER, 'non-blocking refuses a section')
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Irecv(y(1:10:3), 4, MPI_INTEGER, rank, 2, dup, req, ierror)
  call check(ierror == MPI_ERR_BUFFER .and. handled == MPI_ERR_BUFFER, 'through the handler')
  call MPI_Isend(x(1:5), 5, MPI_INTEGER, rank, 3, dup, req)
  call MPI_Recv(y, 5, MPI_INTEGER, rank, 3, dup, MPI_STATUS_IGNORE)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(all(y(1:5) == x(1:5)), 'contiguous section non-blocking')
  call MPI_Errhandler_free(eh)
  call MPI_Comm_free(dup)

  ! MPI_Sizeof and the status conversions.
  call MPI_Sizeof(d, sz)
  call check(sz == 8, 'sizeof real(8) array')
  call MPI_Sizeof(i, sz, ierror)
  call check(sz == 4 .and. ierror == MPI_SUCCESS, 'sizeof integer')
  call MPI_Status_f082f(st, f_status)
  call check(f_status(1) == st%MPI_SOURCE .and. f_status(2) == 1, 'f082f')
  st%MPI_TAG = 0
  call MPI_Status_f2f08(f_status, st)
  call check(st%MPI_TAG == 1, 'f2f08')

  call MPI_Barrier(MPI_COMM_WORLD)
  call check(barriers == 1, 'the program''s MPI_Barrier_f08 ran')
  print '(a)', 'sections ok'
  call MPI_Finalize()
contains
  include 'check.inc'
end program sections

! The communicator's handler: remembers the error class.
subroutine on_error(comm, code)
  use mpi_f08, only: MPI_Comm
  implicit none
  type(MPI_Comm) :: comm
  integer :: code, barriers, handled
  common /counts/ barriers, handled
  handled = code
end subroutine on_error

! A profiling tool's barrier: counts, then calls the library's.
subroutine MPI_Barrier_f08(comm, ierror)
  use mpi_f08, only: MPI_Comm, PMPI_Barrier
  implicit none
  type(MPI_Comm) :: comm
  integer, optional, intent(out) :: ierror
  integer :: barriers, handled
  common /counts/ barriers, handled
  barriers = barriers + 1
  call PMPI_Barrier(comm, ierror)
end subroutine MPI_Barrier_f08
