! mpi_f08's baseptr is TYPE(C_PTR), as MPI 4.1 binds MPI_Alloc_mem, MPI_Win_allocate,
! MPI_Win_allocate_shared and MPI_Win_shared_query (and their large-count forms).
! Each rank prints "cptr_f08 ok"; a failed check stops it.
program cptr_f08
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated
  implicit none
  integer, parameter :: ak = MPI_ADDRESS_KIND
  integer :: rank, np, i, unit, ierr
  integer(kind=ak) :: size
  type(c_ptr) :: at, there
  integer, pointer :: mem(:), cell(:), peer(:)
  type(MPI_Win) :: win
  type(MPI_Comm) :: here
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)

  call MPI_Alloc_mem(64_ak, MPI_INFO_NULL, at, ierr)
  call check(ierr == MPI_SUCCESS .and. c_associated(at), 'alloc_mem into a c_ptr')
  call c_f_pointer(at, mem, [16])
  mem = [(i, i = 1, 16)]
  call check(sum(mem) == 136, 'memory from alloc_mem')
  call MPI_Free_mem(mem)

  ! One INTEGER per rank: each puts its rank into the next one's.
  call MPI_Win_allocate(4_ak, 4, MPI_INFO_NULL, MPI_COMM_WORLD, at, win)
  call c_f_pointer(at, cell, [1])
  cell(1) = -1
  call MPI_Win_fence(0, win)
  call MPI_Put(rank, 1, MPI_INTEGER, mod(rank + 1, np), 0_ak, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(cell(1) == mod(rank + np - 1, np), 'put into a win_allocate window')
  call MPI_Win_free(win)

  ! The large-count form, its displacement unit of address kind.
  call MPI_Win_allocate(4_ak, 4_ak, MPI_INFO_NULL, MPI_COMM_WORLD, at, win)
  call check(c_associated(at), 'win_allocate_c into a c_ptr')
  call MPI_Win_free(win)

  ! A shared window among the ranks of this host: each writes its own cell, then reads
  ! the first rank's through MPI_Win_shared_query.
  ! (Over UDP the ranks share no memory: the window is refused, through the handler.)
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, here)
  call MPI_Comm_set_errhandler(here, MPI_ERRORS_RETURN)
  call MPI_Win_allocate_shared(4_ak, 4, MPI_INFO_NULL, here, at, win, ierr)
  if (ierr == MPI_SUCCESS) then
    call c_f_pointer(at, cell, [1])
    call MPI_Comm_rank(here, i)
    cell(1) = 1000 + i
    call MPI_Win_fence(0, win)
    call MPI_Win_shared_query(win, 0, size, unit, there)
    call c_f_pointer(there, peer, [1])
    call check(size == 4_ak .and. unit == 4 .and. peer(1) == 1000, 'win_shared_query')
    call MPI_Win_fence(0, win)
    call MPI_Win_free(win)
  end if
  call MPI_Comm_free(here)
  print '(a)', 'cptr_f08 ok'
  call MPI_Finalize()
contains
  include 'check.inc'
end program cptr_f08
