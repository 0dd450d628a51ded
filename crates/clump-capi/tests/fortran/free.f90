! Free-form MPI through `use mpi`: non-blocking point-to-point, Waitall and a 1-based
! Waitany index, collectives on REAL and a struct datatype, a user operation, a
! duplicated communicator with its name and attributes copied by Fortran callbacks,
! errors returned. Each rank prints "free ok"; a failed check stops it.
program free
  use mpi
  implicit none
  integer :: ierr, rank, np, next, prev, reqs(2), idx, dup, newtype, len
  integer :: statuses(MPI_STATUS_SIZE, 2), blocks(2), types(2), key, dupkey, op, r, class
  integer(kind=MPI_ADDRESS_KIND) :: value
  integer :: info, buflen
  character(len=16) :: text
  external :: plus_extra, biggest_int
  integer(kind=MPI_ADDRESS_KIND) :: disps(2), base, tag_ub
  real :: out(5), in(5), biggest(5)
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name
  type pair
    sequence
    integer :: i
    double precision :: d
  end type pair
  type(pair) :: p
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)
  out = real(rank)
  call MPI_Irecv(in, 5, MPI_REAL, prev, 1, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(out, 5, MPI_REAL, next, 1, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call check(all(in == real(prev)) .and. statuses(MPI_SOURCE, 1) == prev, 'ring')
  call check(reqs(1) == MPI_REQUEST_NULL, 'requests freed')
  call MPI_Isend(out, 1, MPI_REAL, rank, 2, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Waitany(1, reqs, idx, MPI_STATUS_IGNORE, ierr)
  call check(idx == 1, 'waitany index is 1-based')
  call MPI_Recv(in, 1, MPI_REAL, rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(out, biggest, 5, MPI_REAL, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(biggest(5) == real(np - 1), 'real max')
  ! A struct of an INTEGER and a DOUBLE PRECISION, by addresses.
  call MPI_Get_address(p%i, base, ierr)
  call MPI_Get_address(p%d, disps(2), ierr)
  disps(1) = 0
  disps(2) = disps(2) - base
  blocks = 1
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Type_create_struct(2, blocks, disps, types, newtype, ierr)
  call MPI_Type_commit(newtype, ierr)
  p = pair(-1, -1d0)
  if (rank == 0) p = pair(42, 2.5d0)
  call MPI_Bcast(p, 1, newtype, 0, MPI_COMM_WORLD, ierr)
  call check(p%i == 42 .and. p%d == 2.5d0, 'struct bcast')
  call MPI_Type_free(newtype, ierr)
  call MPI_Op_create(biggest_int, .true., op, ierr)
  call MPI_Allreduce(rank, r, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(r == np - 1, 'user operation')
  call MPI_Op_free(op, ierr)
  ! Attributes: one copied by a Fortran callback (value + extra state), one by
  ! MPI_COMM_DUP_FN.
  call MPI_Comm_create_keyval(plus_extra, MPI_COMM_NULL_DELETE_FN, key, 100_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dupkey, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, 41_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, dupkey, 7_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, key, value, flag, ierr)
  call check(flag .and. value == 141, 'attribute copied by a Fortran callback')
  call MPI_Comm_get_attr(dup, dupkey, value, flag, ierr)
  call check(flag .and. value == 7, 'attribute copied by MPI_COMM_DUP_FN')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, dupkey, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, value, flag, ierr)
  call check(.not. flag, 'attribute deleted')
  call MPI_Comm_set_name(dup, 'fortran dup', ierr)
  call MPI_Comm_get_name(dup, name, len, ierr)
  call check(name == 'fortran dup' .and. len == 11, 'communicator name')
  call MPI_Comm_get_attr(dup, MPI_TAG_UB, tag_ub, flag, ierr)
  call check(flag .and. tag_ub >= 32767, 'tag upper bound')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Comm_free_keyval(dupkey, ierr)
  ! Info values: Fortran strings are blank-padded, lengths count no NUL.
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'colour', 'blue  ', ierr)
  call MPI_Info_get(info, 'colour', 16, text, flag, ierr)
  call check(flag .and. text == 'blue', 'info get')
  buflen = 2
  call MPI_Info_get_string(info, 'colour', buflen, text, flag, ierr)
  call check(flag .and. buflen == 4 .and. text == 'bl', 'info get_string cut to fit')
  call MPI_Info_get(info, 'shape', 16, text, flag, ierr)
  call check(.not. flag, 'info: no such key')
  call MPI_Info_free(info, ierr)
  call check(info == MPI_INFO_NULL, 'info freed')
  ! Errors returned: a rank past the communicator's.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(out, 1, MPI_REAL, np + 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, class, r)
  call check(class == MPI_ERR_RANK, 'error class of a bad rank')
  call MPI_Error_string(ierr, name, len, r)
  call check(len > 0 .and. len_trim(name) > 0, 'error string')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  print '(a)', 'free ok'
  call MPI_Finalize(ierr)
contains
  include 'check.inc'
end program free

! MPI_Comm_copy_attr_function: the copy is the value plus the key's extra state.
subroutine plus_extra(comm, key, extra, in, out, flag, ierr)
  use mpi, only: MPI_ADDRESS_KIND, MPI_SUCCESS
  implicit none
  integer :: comm, key, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, in, out
  logical :: flag
  out = in + extra
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine plus_extra

! MPI_User_function: the larger of each pair of integers.
subroutine biggest_int(in, inout, len, datatype)
  implicit none
  integer :: len, datatype
  integer :: in(len), inout(len)
  inout = max(in, inout)
end subroutine biggest_int
