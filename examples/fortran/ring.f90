! A token goes round the ranks, each adding one; each rank checks the value it gets.
program ring
  use mpi_f08
  implicit none
  integer :: rank, np, from, token
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  from = mod(rank + np - 1, np)
  if (rank == 0) call MPI_Send(1, 1, MPI_INTEGER, mod(1, np), 0, MPI_COMM_WORLD)
  call MPI_Recv(token, 1, MPI_INTEGER, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  if (rank > 0) call MPI_Send(token + 1, 1, MPI_INTEGER, mod(rank + 1, np), 0, MPI_COMM_WORLD)
  if (token == merge(np, rank, rank == 0)) print '(a)', 'ring ok'
  call MPI_Finalize()
end program ring
