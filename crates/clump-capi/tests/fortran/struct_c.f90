! mpi_f08's large-count forms whose arrays of handles are as long as an
! INTEGER(KIND=MPI_COUNT_KIND) argument (MPI_Type_create_struct_c, MPI_Type_get_contents_c)
! and MPI_Op_create_c, a generic of its own (its user function's length is
! INTEGER(KIND=MPI_COUNT_KIND), which a generic cannot tell from MPI_Op_create's). A
! struct of an integer and a double goes round the ring; its contents give its types
! back; a user operation of the large-count interface sums. Each rank prints
! "struct_c ok"; a failed check stops it.
module struct_c_ops
  use mpi_f08
  implicit none
contains
  ! MPI_User_function_c: the sum of each pair of integers.
  subroutine sum_ints(in, inout, len, datatype)
    integer(kind=MPI_COUNT_KIND) :: len
    integer :: in(len), inout(len)
    type(MPI_Datatype) :: datatype
    inout = in + inout
  end subroutine sum_ints
end module struct_c_ops

program struct_c
  use mpi_f08
  use struct_c_ops
  implicit none
  integer, parameter :: ck = MPI_COUNT_KIND
  type pair
    integer :: i
    double precision :: d
  end type pair
  type(pair) :: out, in
  type(MPI_Datatype) :: t, types(2)
  type(MPI_Op) :: op
  integer(kind=ck) :: ni, na, nc, nd, lens(2), disps(2), large(4)
  integer(kind=MPI_ADDRESS_KIND) :: at(2), base, addresses(2)
  integer :: rank, np, combiner, ints(3), total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)

  call MPI_Get_address(out, base)
  call MPI_Get_address(out%i, at(1))
  call MPI_Get_address(out%d, at(2))
  lens = 1
  disps = at - base
  call MPI_Type_create_struct(2_ck, lens, disps, [MPI_INTEGER, MPI_DOUBLE_PRECISION], t)
  call MPI_Type_commit(t)
  out = pair(rank, rank + 0.5d0)
  call MPI_Sendrecv(out, 1, t, mod(rank + 1, np), 5, in, 1, t, mod(rank + np - 1, np), 5, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(in%i == mod(rank + np - 1, np) .and. in%d == in%i + 0.5d0, 'struct_c round the ring')

  call MPI_Type_get_envelope(t, ni, na, nc, nd, combiner)
  call check(combiner == MPI_COMBINER_STRUCT .and. nd == 2, 'get_envelope_c')
  call check(ni <= 3 .and. na <= 2 .and. nc <= 4, 'get_envelope_c sizes')
  types = MPI_DATATYPE_NULL
  call MPI_Type_get_contents(t, ni, na, nc, nd, ints, addresses, large, types)
  call check(types(1) == MPI_INTEGER .and. types(2) == MPI_DOUBLE_PRECISION, 'get_contents_c types')
  if (nc > 0) then
    call check(large(1) == 2, 'get_contents_c count in the large counts')
  else
    call check(ints(1) == 2 .and. all(addresses == disps), 'get_contents_c count and displacements')
  end if
  call MPI_Type_free(t)

  call MPI_Op_create_c(sum_ints, .true., op)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(total == np * (np - 1) / 2, 'op_create_c')
  call MPI_Op_free(op)
  print '(a)', 'struct_c ok'
  call MPI_Finalize()
contains
  include 'check.inc'
end program struct_c
