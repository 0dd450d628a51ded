! The procedures added to the Fortran faces after the first ones, through `use mpi`:
! non-blocking and persistent collectives, Alltoallw's per-rank datatypes, a Cartesian
! topology with LOGICAL periods, a distributed graph with MPI_UNWEIGHTED, a matched probe,
! a Fortran error handler, user error classes, address arithmetic functions, counts of
! MPI_COUNT_KIND, the status setters, MPI_F_sync_reg and MPI_Pcontrol. Each rank prints
! "faces ok"; a failed check stops it.
program faces
  use mpi
  implicit none
  integer :: ierr, rank, np, next, prev, req, i, cart, coords(1), dims(1), src, dst
  integer :: graph, indeg, outdeg, msg, got, class, code, eh, st(MPI_STATUS_SIZE)
  integer :: counts(64), displs(64), types(64), sources(1), dests(1), topo
  integer :: errors_seen
  integer(kind=MPI_ADDRESS_KIND) :: a, b
  integer(kind=MPI_COUNT_KIND) :: size_x
  integer :: sendw(64), recvw(64), total, ring(2)
  logical :: periods(1), weighted, flag
  character(len=MPI_MAX_ERROR_STRING) :: text
  integer :: len
  common /seen/ errors_seen
  external :: on_error
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)

  ! Non-blocking and persistent collectives.
  call MPI_Iallreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. total == np * (np + 1) / 2, 'iallreduce')
  call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Bcast_init(total, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
  do i = 1, 2
    if (rank == 0) total = 40 + i
    call MPI_Start(req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_F_sync_reg(total) ! the compiler may keep total in a register otherwise
    call check(total == 40 + i, 'persistent bcast')
  end do
  call MPI_Request_free(req, ierr)

  ! Alltoallw: one INTEGER to each rank, its datatype per rank.
  do i = 1, np
    sendw(i) = 100 * rank + i - 1
    counts(i) = 1
    displs(i) = 4 * (i - 1)
    types(i) = MPI_INTEGER
  end do
  call MPI_Alltoallw(sendw, counts, displs, types, recvw, counts, displs, types, &
                     MPI_COMM_WORLD, ierr)
  call check(all(recvw(1:np) == [(100 * i + rank, i = 0, np - 1)]), 'alltoallw')

  ! A periodic ring as a Cartesian topology.
  dims(1) = np
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Topo_test(cart, topo, ierr)
  call check(topo == MPI_CART, 'topo_test')
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  call check(src == prev .and. dst == next, 'cart_shift')
  periods(1) = .false.
  call MPI_Cart_get(cart, 1, dims, periods, coords, ierr)
  call check(periods(1) .and. coords(1) == rank, 'cart_get')
  call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, ring, 1, MPI_INTEGER, cart, ierr)
  call check(ring(1) == prev .and. ring(2) == next, 'neighbor_allgather')
  call MPI_Comm_free(cart, ierr)

  ! The same ring as an unweighted distributed graph.
  sources(1) = prev
  dests(1) = next
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, sources, MPI_UNWEIGHTED, 1, dests, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., graph, ierr)
  call check(ierr == MPI_SUCCESS, 'dist_graph_create_adjacent')
  call MPI_Dist_graph_neighbors_count(graph, indeg, outdeg, weighted, ierr)
  call check(indeg == 1 .and. outdeg == 1 .and. .not. weighted, 'unweighted')
  call MPI_Comm_free(graph, ierr)

  ! A matched probe and receive.
  call MPI_Send(rank, 1, MPI_INTEGER, next, 7, MPI_COMM_WORLD, ierr)
  call MPI_Mprobe(prev, 7, MPI_COMM_WORLD, msg, st, ierr)
  call MPI_Mrecv(got, 1, MPI_INTEGER, msg, st, ierr)
  call check(got == prev .and. msg == MPI_MESSAGE_NULL .and. st(MPI_TAG) == 7, 'mrecv')

  ! A user error class, code and string, raised through a Fortran error handler.
  call MPI_Add_error_class(class, ierr)
  call MPI_Add_error_code(class, code, ierr)
  call MPI_Add_error_string(code, 'clump fortran test error', ierr)
  call MPI_Error_string(code, text, len, ierr)
  call check(text(1:len) == 'clump fortran test error', 'error string')
  errors_seen = 0
  call MPI_Comm_create_errhandler(on_error, eh, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh, ierr)
  call MPI_Comm_call_errhandler(MPI_COMM_WORLD, code, ierr)
  call check(errors_seen == code, 'fortran error handler')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  call MPI_Errhandler_free(eh, ierr)

  ! Functions and MPI_COUNT_KIND arguments.
  call MPI_Get_address(sendw(1), a, ierr)
  call MPI_Get_address(sendw(3), b, ierr)
  call check(MPI_Aint_diff(b, a) == 8 .and. MPI_Aint_add(a, 8_MPI_ADDRESS_KIND) == b, 'aint')
  call MPI_Type_size_x(MPI_DOUBLE_PRECISION, size_x, ierr)
  call check(size_x == 8, 'type_size_x')
  call MPI_Status_set_elements_x(st, MPI_INTEGER, 3_MPI_COUNT_KIND, ierr)
  call MPI_Get_elements_x(st, MPI_INTEGER, size_x, ierr)
  call check(size_x == 3, 'status elements')
  call MPI_Status_set_cancelled(st, .true., ierr)
  call MPI_Test_cancelled(st, flag, ierr)
  call check(flag, 'status cancelled')
  call MPI_Pcontrol(1)

  print '(a)', 'faces ok'
  call MPI_Finalize(ierr)
contains
  include 'check.inc'
end program faces

! A communicator error handler: remembers the code it was called with.
subroutine on_error(comm, code)
  implicit none
  integer :: comm, code, errors_seen
  common /seen/ errors_seen
  errors_seen = code
end subroutine on_error
