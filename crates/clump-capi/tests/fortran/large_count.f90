! mpi_f08's large-count forms: the generic MPI_X takes INTEGER(KIND=MPI_COUNT_KIND)
! counts and calls MPI_X_c (point-to-point blocking and not, persistent, collectives,
! Get_count, Type_size, Type_contiguous, a window); a count beyond an int is MPI_ERR_COUNT
! through the handler, not a truncated int. Each rank prints "large_count ok"; a failed
! check stops it.
program large_count
  use mpi_f08
  implicit none
  integer, parameter :: ck = MPI_COUNT_KIND
  integer :: rank, np, next, prev, ierr, class, i
  integer(kind=ck) :: n, got, sz
  integer :: a(8), b(8)
  real(kind=8) :: x(3), y(3)
  type(MPI_Status) :: st
  type(MPI_Request) :: reqs(2)
  type(MPI_Datatype) :: four
  type(MPI_Win) :: win
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)
  n = 8_ck

  a = [(rank * 100 + i, i = 1, 8)]
  b = -1
  call MPI_Sendrecv(a, n, MPI_INTEGER, next, 1, b, n, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, st)
  call check(all(b == [(prev * 100 + i, i = 1, 8)]), 'sendrecv with count kind')
  call MPI_Get_count(st, MPI_INTEGER, got)
  call check(got == 8_ck, 'get_count into count kind')

  b = -1
  call MPI_Irecv(b, n, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(a, n, MPI_INTEGER, next, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(all(b == [(prev * 100 + i, i = 1, 8)]), 'isend and irecv with count kind')

  b = -1
  call MPI_Recv_init(b, n, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Send_init(a, n, MPI_INTEGER, next, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Startall(2, reqs)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))
  call check(all(b == [(prev * 100 + i, i = 1, 8)]), 'persistent with count kind')

  x = [1.0d0, real(rank, 8), 2.0d0]
  call MPI_Allreduce(x, y, 3_ck, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(y(2) == np * (np - 1) / 2 .and. y(3) == 2 * np, 'allreduce with count kind')
  if (rank == 0) a = 7
  call MPI_Bcast(a, n, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(all(a == 7), 'bcast with count kind')

  call MPI_Type_contiguous(4_ck, MPI_INTEGER, four)
  call MPI_Type_commit(four)
  call MPI_Type_size(four, sz)
  call check(sz == 16_ck, 'type_size into count kind')
  call MPI_Type_free(four)

  a = rank
  call MPI_Win_create(a, 32_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND, MPI_INFO_NULL, &
                      MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  call MPI_Put(rank, 1, MPI_INTEGER, next, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(a(1) == prev, 'window made with an address-kind displacement unit')
  call MPI_Win_free(win)

  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(a, 3000000000_ck, MPI_INTEGER, MPI_PROC_NULL, 4, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, class)
  call check(class == MPI_ERR_COUNT, 'a count beyond an int is MPI_ERR_COUNT')
  print '(a)', 'large_count ok'
  call MPI_Finalize()
contains
  include 'check.inc'
end program large_count
