! Generalized requests from Fortran (`use mpi`): MPI_Grequest_start with Fortran query,
! free and cancel procedures (every argument by reference, ierror last), the state an
! INTEGER(KIND=MPI_ADDRESS_KIND). The wait reports what query set; the free procedure runs
! once; a cancel reaches the cancel procedure with COMPLETE; an error a procedure returns
! comes back from the call that ran it. Each rank prints "grequest ok".
module grequest_callbacks
  use mpi
  implicit none
  integer :: queried = 0, freed = 0, cancelled = 0
  logical :: last_complete = .false.
  integer :: query_error = MPI_SUCCESS
contains
  subroutine query_fn(extra, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierror
    queried = queried + 1
    status(MPI_SOURCE) = int(extra)
    status(MPI_TAG) = 77
    call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierror)
    call MPI_Status_set_cancelled(status, .false., ierror)
    ierror = query_error
  end subroutine query_fn
  subroutine free_fn(extra, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierror
    freed = freed + 1
    ierror = MPI_SUCCESS
  end subroutine free_fn
  subroutine cancel_fn(extra, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierror
    cancelled = cancelled + 1
    last_complete = complete
    ierror = MPI_SUCCESS
  end subroutine cancel_fn
end module grequest_callbacks

program grequest
  use mpi
  use grequest_callbacks
  implicit none
  integer :: ierr, rank, req, count, class
  integer :: st(MPI_STATUS_SIZE)
  logical :: flag
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, int(rank + 40, MPI_ADDRESS_KIND), req, ierr)
  call check(ierr == MPI_SUCCESS .and. req /= MPI_REQUEST_NULL, 'grequest_start')
  call MPI_Test(req, flag, st, ierr)
  call check(.not. flag, 'not complete before Grequest_complete')
  call MPI_Cancel(req, ierr)
  call check(cancelled == 1 .and. .not. last_complete, 'cancel reached with complete false')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, st, ierr)
  call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'wait')
  call check(queried == 1 .and. freed == 1, 'query and free ran once each')
  call check(st(MPI_SOURCE) == rank + 40 .and. st(MPI_TAG) == 77, 'status from query')
  call MPI_Get_count(st, MPI_INTEGER, count, ierr)
  call check(count == 3, 'count from query')

  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  query_error = MPI_ERR_OTHER
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, 0_MPI_ADDRESS_KIND, req, ierr)
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Error_class(ierr, class, ierr)
  call check(class /= MPI_SUCCESS, 'an error the query returns reaches the wait')
  print '(a)', 'grequest ok'
  call MPI_Finalize(ierr)
contains
  include 'check.inc'
end program grequest
