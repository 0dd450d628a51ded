! Sessions through `use mpi_f08`: TYPE(MPI_Session), its process sets by number and name,
! a communicator made from the world set's group, the session's info and error handler.
! Each rank prints "sessions ok"; a failed check stops it.
program sessions
  use mpi_f08
  implicit none
  type(MPI_Session) :: session
  type(MPI_Errhandler) :: eh, got
  type(MPI_Info) :: info
  type(MPI_Group) :: group
  type(MPI_Comm) :: comm
  integer :: n, i, length, rank, np, size, total, ierror, calls
  character(len=32) :: name
  character(len=MPI_MAX_INFO_VAL) :: value
  logical :: flag, world_seen
  common /seen/ calls
  external :: on_error
  calls = 0
  session = MPI_SESSION_NULL
  call check(session == MPI_SESSION_NULL, 'MPI_SESSION_NULL')
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierror)
  call check(ierror == MPI_SUCCESS .and. session /= MPI_SESSION_NULL, 'session_init')
  call MPI_Session_get_num_psets(session, MPI_INFO_NULL, n)
  call check(n >= 2, 'get_num_psets')
  world_seen = .false.
  do i = 0, n - 1
    length = 0
    call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, length, name)
    call check(length > 6 .and. length <= len(name), 'get_nth_pset length')
    length = len(name)
    call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, length, name)
    call check(name(1:6) == 'mpi://' .and. len_trim(name) == length, 'get_nth_pset name')
    world_seen = world_seen .or. name == 'mpi://WORLD'
  end do
  call check(world_seen, 'mpi://WORLD listed')
  call MPI_Session_get_pset_info(session, 'mpi://WORLD', info)
  call MPI_Info_get(info, 'mpi_size', len(value), value, flag)
  call MPI_Info_free(info)
  call check(flag, 'mpi_size given')
  read (value, *) size
  call MPI_Group_from_session_pset(session, 'mpi://WORLD', group)
  call MPI_Group_size(group, np)
  call check(size == np, 'mpi_size')
  call MPI_Comm_create_from_group(group, 'clump.tests.fortran', MPI_INFO_NULL, &
                                  MPI_ERRORS_RETURN, comm)
  call MPI_Group_free(group)
  call MPI_Comm_rank(comm, rank)
  call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, comm)
  call check(total == np * (np + 1) / 2, 'allreduce over the session communicator')
  call MPI_Comm_free(comm)
  call MPI_Session_get_info(session, info)
  call MPI_Info_get(info, 'thread_level', len(value), value, flag)
  call check(flag .and. value(1:11) == 'MPI_THREAD_', 'session_get_info')
  call MPI_Info_free(info)
  ! A Fortran error handler on the session: called with the session and the code.
  call MPI_Session_create_errhandler(on_error, eh)
  call MPI_Session_set_errhandler(session, eh)
  call MPI_Session_get_errhandler(session, got)
  call check(got == eh, 'session_get_errhandler')
  call MPI_Errhandler_free(got)
  call MPI_Session_call_errhandler(session, MPI_ERR_OTHER)
  call check(calls == 1, 'session error handler called')
  ! A process set that does not exist: an error through that handler, returned.
  call MPI_Group_from_session_pset(session, 'mpi://NOWHERE', group, ierror)
  call check(ierror /= MPI_SUCCESS .and. calls == 2, 'unknown process set')
  call MPI_Errhandler_free(eh)
  call MPI_Session_finalize(session)
  call check(session == MPI_SESSION_NULL, 'session_finalize')
  print '(a)', 'sessions ok'
contains
  include 'check.inc'
end program sessions

subroutine on_error(session, code)
  use mpi_f08
  implicit none
  type(MPI_Session) :: session
  integer :: code, calls
  common /seen/ calls
  if (session /= MPI_SESSION_NULL .and. code /= MPI_SUCCESS) calls = calls + 1
end subroutine on_error
