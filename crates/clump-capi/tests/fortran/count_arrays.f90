! mpi_f08's large-count forms whose counts are arrays: INTEGER(KIND=MPI_COUNT_KIND)
! counts and INTEGER(KIND=MPI_ADDRESS_KIND) displacements select MPI_X_c (gatherv,
! scatterv persistent, allgatherv blocking and not, alltoallv, alltoallw, reduce_scatter).
! Rank r sends r+1 integers valued 100*r+i. Each rank prints "count_arrays ok"; a failed
! check stops it.
program count_arrays
  use mpi_f08
  implicit none
  integer, parameter :: ck = MPI_COUNT_KIND, ak = MPI_ADDRESS_KIND
  integer :: rank, np, i, r, total
  integer(kind=ck), allocatable :: counts(:), ones(:)
  integer(kind=ak), allocatable :: displs(:), bytes(:), steps(:)
  integer, allocatable :: mine(:), whole(:), expect(:), sent(:), got(:)
  type(MPI_Datatype), allocatable :: types(:)
  type(MPI_Request) :: req
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  allocate(counts(np), ones(np), displs(np), bytes(np), steps(np), types(np))
  counts = [(int(r + 1, ck), r = 0, np - 1)]
  displs = [(int(r * (r + 1) / 2, ak), r = 0, np - 1)]
  total = np * (np + 1) / 2
  allocate(mine(rank + 1), whole(total), expect(total))
  mine = [(100 * rank + i, i = 1, rank + 1)]
  expect = [((100 * r + i, i = 1, r + 1), r = 0, np - 1)]

  whole = -1
  call MPI_Gatherv(mine, int(rank + 1, ck), MPI_INTEGER, whole, counts, displs, MPI_INTEGER, &
                   0, MPI_COMM_WORLD)
  if (rank == 0) call check(all(whole == expect), 'gatherv_c')

  whole = -1
  call MPI_Allgatherv(mine, int(rank + 1, ck), MPI_INTEGER, whole, counts, displs, &
                      MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(whole == expect), 'allgatherv_c')

  whole = -1
  call MPI_Iallgatherv(mine, int(rank + 1, ck), MPI_INTEGER, whole, counts, displs, &
                       MPI_INTEGER, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(all(whole == expect), 'iallgatherv_c')

  mine = -1
  call MPI_Scatterv_init(expect, counts, displs, MPI_INTEGER, mine, int(rank + 1, ck), &
                         MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req)
  call MPI_Start(req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_Request_free(req)
  call check(all(mine == [(100 * rank + i, i = 1, rank + 1)]), 'scatterv_init_c')

  ! Alltoallv: one integer to each rank, 1000*from + to.
  allocate(sent(np), got(np))
  ones = 1_ck
  steps = [(int(r, ak), r = 0, np - 1)]
  sent = [(1000 * rank + r, r = 0, np - 1)]
  got = -1
  call MPI_Alltoallv(sent, ones, steps, MPI_INTEGER, got, ones, steps, MPI_INTEGER, &
                     MPI_COMM_WORLD)
  call check(all(got == [(1000 * r + rank, r = 0, np - 1)]), 'alltoallv_c')

  ! Alltoallw: the same, its displacements in bytes.
  bytes = steps * 4_ak
  types = MPI_INTEGER
  got = -1
  call MPI_Alltoallw(sent, ones, bytes, types, got, ones, bytes, types, MPI_COMM_WORLD)
  call check(all(got == [(1000 * r + rank, r = 0, np - 1)]), 'alltoallw_c')

  ! Reduce_scatter: rank r gets r+1 sums of 100*s+i over every rank s.
  deallocate(mine)
  allocate(mine(rank + 1))
  whole = [((i, i = 1, r + 1), r = 0, np - 1)]
  call MPI_Reduce_scatter(whole, mine, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(mine == [(np * i, i = 1, rank + 1)]), 'reduce_scatter_c')

  print '(a)', 'count_arrays ok'
  call MPI_Finalize()
contains
  include 'check.inc'
end program count_arrays
