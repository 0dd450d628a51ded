! What MPICH's Fortran tests found missing from the `mpi` module: MPI_Alloc_mem and
! MPI_Win_allocate with a TYPE(C_PTR) baseptr (the MPI_X_CPTR specifics of MPI 4.1), the
! profiling functions PMPI_Wtime and PMPI_Wtick, and MPI_Sizeof on LOGICAL and CHARACTER.
! Each rank prints "cptr ok"; a failed check stops it.
program cptr
  use mpi
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: ierr, rank, np, win, sz, i
  integer(kind=MPI_ADDRESS_KIND) :: bytes
  type(c_ptr) :: at
  integer, pointer :: mem(:), shared(:)
  double precision :: t
  logical :: flags(3)
  character(len=5) :: word
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  bytes = 4 * 16
  call MPI_Alloc_mem(bytes, MPI_INFO_NULL, at, ierr)
  call check(ierr == MPI_SUCCESS, 'alloc_mem with a c_ptr')
  call c_f_pointer(at, mem, [16])
  mem = [(i, i = 1, 16)]
  call check(sum(mem) == 136, 'memory from alloc_mem')
  call MPI_Free_mem(mem, ierr)
  ! A window of one INTEGER per rank: each puts its rank into the next one's.
  call MPI_Win_allocate(4_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, at, win, ierr)
  call check(ierr == MPI_SUCCESS, 'win_allocate with a c_ptr')
  call c_f_pointer(at, shared, [1])
  shared(1) = -1
  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(rank, 1, MPI_INTEGER, mod(rank + 1, np), 0_MPI_ADDRESS_KIND, 1, &
               MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(shared(1) == mod(rank + np - 1, np), 'put into the allocated window')
  call MPI_Win_free(win, ierr)
  t = PMPI_Wtime()
  call check(t > 0d0 .and. PMPI_Wtick() > 0d0 .and. PMPI_Wtick() < 1d0, 'pmpi_wtime')
  call MPI_Sizeof(flags, sz, ierr)
  call check(sz == 4, 'sizeof logical')
  call MPI_Sizeof(word, sz, ierr)
  call check(sz == 5, 'sizeof character')
  call MPI_Finalize(ierr)
  print '(a)', 'cptr ok'
contains
  include 'check.inc'
end program cptr
