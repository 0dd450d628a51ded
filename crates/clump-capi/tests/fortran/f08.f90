! MPI through `use mpi_f08`: derived-type handles and status, no ierror, array sections
! as buffers, a collective on DOUBLE PRECISION, a split communicator with its group, a
! non-blocking collective, a Cartesian topology, an address function, a count of
! MPI_COUNT_KIND, a vector datatype around the ring.
! Each rank prints "f08 ok"; a failed check stops it.
program f08
  use mpi_f08
  implicit none
  integer :: rank, np, srank, gsize, ierror
  type(MPI_Request) :: req
  type(MPI_Status) :: st
  type(MPI_Comm) :: sub
  type(MPI_Group) :: group
  real :: x(3, 4)
  double precision :: d(2), dsum(2)
  type(MPI_Comm) :: cart
  integer :: src, dst
  integer(kind=MPI_ADDRESS_KIND) :: a
  integer(kind=MPI_COUNT_KIND) :: n8
  type(MPI_Datatype) :: every_other
  integer :: iv(6), ir(3), got
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  x = real(rank)
  call MPI_Isend(x(:, 2), 3, MPI_REAL, mod(rank + 1, np), 5, MPI_COMM_WORLD, req)
  call MPI_Recv(x(:, 1), 3, MPI_REAL, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, st)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(st%MPI_SOURCE == mod(rank + np - 1, np) .and. st%MPI_TAG == 5, 'status')
  call check(all(x(:, 1) == real(st%MPI_SOURCE)), 'section received')
  d = [1d0, dble(rank)]
  call MPI_Allreduce(d, dsum, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_SUCCESS .and. dsum(1) == dble(np), 'double sum')
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
  call MPI_Comm_rank(sub, srank)
  call MPI_Comm_group(sub, group)
  call MPI_Group_size(group, gsize)
  call check(srank == rank / 2 .and. gsize == (np + 1 - mod(rank, 2)) / 2, 'split')
  call MPI_Group_free(group)
  call MPI_Comm_free(sub)
  call check(sub == MPI_COMM_NULL, 'freed')
  call MPI_Iallreduce(d, dsum, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_F_sync_reg(dsum)
  call check(dsum(2) == dble(np - 1), 'iallreduce')
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [np], [.true.], .false., cart)
  call MPI_Cart_shift(cart, 0, 1, src, dst)
  call check(src == mod(rank + np - 1, np) .and. dst == mod(rank + 1, np), 'cart_shift')
  call MPI_Comm_free(cart)
  call MPI_Get_address(d(1), a)
  call check(MPI_Aint_diff(MPI_Aint_add(a, 8_MPI_ADDRESS_KIND), a) == 8, 'aint')
  call MPI_Type_size_x(MPI_DOUBLE_PRECISION, n8)
  call check(n8 == 8, 'type_size_x')
  ! A derived datatype: every other one of 6 INTEGERs, sent to the next rank.
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, every_other)
  call MPI_Type_commit(every_other)
  iv = -1
  iv(1:5:2) = [rank, rank + 10, rank + 20]
  call MPI_Sendrecv(iv, 1, every_other, mod(rank + 1, np), 9, ir, 3, MPI_INTEGER, &
                    mod(rank + np - 1, np), 9, MPI_COMM_WORLD, st)
  src = mod(rank + np - 1, np)
  call check(all(ir == [src, src + 10, src + 20]), 'vector datatype')
  call MPI_Get_count(st, MPI_INTEGER, got)
  call check(got == 3, 'count of the vector')
  call MPI_Type_free(every_other)
  call check(every_other == MPI_DATATYPE_NULL, 'type_free')
  print '(a)', 'f08 ok'
  call MPI_Finalize()
contains
  include 'check.inc'
end program f08
