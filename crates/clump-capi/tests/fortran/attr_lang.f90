! Attributes set in one language and read in the other (MPI 4.1 19.3.7), C's half in
! attr_lang.c. A value Fortran sets (MPI_XXX_SET_ATTR, or MPI-1's MPI_ATTR_PUT) is an
! integer, which C reads through a pointer to an MPI_Aint (an int); a value C sets is an
! address, which Fortran reads as an integer (MPI_ATTR_GET its low part); copy and delete
! callbacks see a value as their language reads it, on communicators, datatypes and
! windows; and the predefined attributes read from Fortran are their values. Each rank
! prints "attr_lang ok".
module attr_lang_callbacks
  use mpi
  implicit none
contains
  ! Copies a value as one more (a communicator's or a datatype's copy procedure).
  subroutine add_one(old, key, extra, in, out, flag, ierror)
    integer :: old, key, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, in, out
    logical :: flag
    out = in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine add_one
  ! The same with MPI-1's default INTEGERs (MPI_KEYVAL_CREATE's COPY_FUNCTION).
  subroutine add_one_int(old, key, extra, in, out, flag, ierror)
    integer :: old, key, extra, in, out, ierror
    logical :: flag
    out = in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine add_one_int
end module attr_lang_callbacks

program attr_lang
  use mpi
  use attr_lang_callbacks
  use, intrinsic :: iso_c_binding, only: c_int, c_intptr_t
  implicit none
  interface
    integer(c_int) function c_read_aint(kind, handle, key, expected) bind(C)
      import :: c_int, c_intptr_t
      integer(c_int), value :: kind, handle, key
      integer(c_intptr_t), value :: expected
    end function c_read_aint
    integer(c_int) function c_read_int(comm, key, expected) bind(C)
      import :: c_int
      integer(c_int), value :: comm, key, expected
    end function c_read_int
    subroutine c_set(kind, handle, key, value) bind(C)
      import :: c_int, c_intptr_t
      integer(c_int), value :: kind, handle, key
      integer(c_intptr_t), value :: value
    end subroutine c_set
    integer(c_int) function c_keyval() bind(C)
      import :: c_int
    end function c_keyval
    subroutine c_seen(from, gone) bind(C)
      import :: c_intptr_t
      integer(c_intptr_t) :: from, gone
    end subroutine c_seen
  end interface
  integer, parameter :: COMM = 0, DTYPE = 1, WIN = 2
  integer(kind=MPI_ADDRESS_KIND), parameter :: BIG = huge(0_MPI_ADDRESS_KIND) - 9
  integer(kind=MPI_ADDRESS_KIND), parameter :: HIGH = 2_MPI_ADDRESS_KIND**40 + 7
  integer :: ierr, rank, size, errs, ckey, fkey, tkey, wkey, key1, dup, tdup, w, int_value
  integer :: class
  integer(kind=MPI_ADDRESS_KIND) :: value, from, gone, base
  double precision :: buf(10)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  errs = 0
  call MPI_Comm_create_keyval(add_one, MPI_COMM_NULL_DELETE_FN, fkey, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_create_keyval(add_one, MPI_TYPE_NULL_DELETE_FN, tkey, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, wkey, &
                             0_MPI_ADDRESS_KIND, ierr)
  call MPI_Keyval_create(add_one_int, MPI_NULL_DELETE_FN, key1, 0, ierr)
  call MPI_Win_create(buf, 80_MPI_ADDRESS_KIND, 8, MPI_INFO_NULL, MPI_COMM_WORLD, w, ierr)
  call check(ierr == MPI_SUCCESS, 'win_create')

  ! Fortran sets: C reads a pointer to the value, and after a dup to the copy's.
  call MPI_Comm_set_attr(MPI_COMM_SELF, fkey, BIG, ierr)
  errs = errs + c_read_aint(COMM, MPI_COMM_SELF, fkey, BIG)
  call MPI_Comm_get_attr(MPI_COMM_SELF, fkey, value, flag, ierr)
  call check(flag .and. value == BIG, 'comm_get_attr of what Fortran set')
  call MPI_Comm_dup(MPI_COMM_SELF, dup, ierr)
  errs = errs + c_read_aint(COMM, dup, fkey, BIG + 1)
  call MPI_Comm_free(dup, ierr)
  call MPI_Type_set_attr(MPI_INTEGER, tkey, -BIG, ierr)
  errs = errs + c_read_aint(DTYPE, MPI_INTEGER, tkey, -BIG)
  call MPI_Type_dup(MPI_INTEGER, tdup, ierr)
  errs = errs + c_read_aint(DTYPE, tdup, tkey, -BIG + 1)
  call MPI_Type_get_attr(tdup, tkey, value, flag, ierr)
  call check(flag .and. value == -BIG + 1, 'type_get_attr of the copy')
  call MPI_Type_free(tdup, ierr)
  call MPI_Win_set_attr(w, wkey, BIG, ierr)
  errs = errs + c_read_aint(WIN, w, wkey, BIG)
  call MPI_Win_get_attr(w, wkey, value, flag, ierr)
  call check(flag .and. value == BIG, 'win_get_attr of what Fortran set')

  ! MPI-1's default INTEGER: C reads a pointer to an int, MPI_COMM_GET_ATTR it sign-extended.
  call MPI_Attr_put(MPI_COMM_SELF, key1, -huge(0), ierr)
  errs = errs + c_read_int(MPI_COMM_SELF, key1, -huge(0))
  call MPI_Attr_get(MPI_COMM_SELF, key1, int_value, flag, ierr)
  call check(flag .and. int_value == -huge(0), 'attr_get of what attr_put set')
  call MPI_Comm_get_attr(MPI_COMM_SELF, key1, value, flag, ierr)
  call check(flag .and. value == -huge(0), 'comm_get_attr of what attr_put set')
  call MPI_Comm_dup(MPI_COMM_SELF, dup, ierr)
  errs = errs + c_read_int(dup, key1, -huge(0) + 1)
  call MPI_Comm_free(dup, ierr)

  ! C sets an address: Fortran reads it as an integer, MPI_ATTR_GET its low part, and a
  ! Fortran copy procedure sees that integer.
  call c_set(COMM, MPI_COMM_SELF, fkey, HIGH)
  call MPI_Comm_get_attr(MPI_COMM_SELF, fkey, value, flag, ierr)
  call check(flag .and. value == HIGH, 'comm_get_attr of what C set')
  call MPI_Attr_get(MPI_COMM_SELF, fkey, int_value, flag, ierr)
  call check(flag .and. int_value == 7, 'attr_get of what C set: the low part')
  call MPI_Comm_dup(MPI_COMM_SELF, dup, ierr)
  call MPI_Comm_get_attr(dup, fkey, value, flag, ierr)
  call check(flag .and. value == HIGH + 1, 'a Fortran copy of what C set')
  call MPI_Comm_free(dup, ierr)
  call c_set(DTYPE, MPI_INTEGER, tkey, -5_MPI_ADDRESS_KIND)
  call MPI_Type_get_attr(MPI_INTEGER, tkey, value, flag, ierr)
  call check(flag .and. value == -5, 'type_get_attr of what C set')
  call c_set(WIN, w, wkey, 12345_MPI_ADDRESS_KIND)
  call MPI_Win_get_attr(w, wkey, value, flag, ierr)
  call check(flag .and. value == 12345, 'win_get_attr of what C set')

  ! A key with C callbacks on a value Fortran set: they get a pointer to it.
  ckey = c_keyval()
  call MPI_Comm_set_attr(MPI_COMM_SELF, ckey, BIG - 1, ierr)
  call MPI_Comm_dup(MPI_COMM_SELF, dup, ierr)
  call c_seen(from, gone)
  call check(from == BIG - 1, 'the C copy callback saw a pointer to the value')
  errs = errs + c_read_aint(COMM, dup, ckey, BIG + 1)
  call MPI_Comm_free(dup, ierr)
  call c_seen(from, gone)
  call check(gone == BIG + 1, 'the C delete callback of the copy')
  call MPI_Comm_delete_attr(MPI_COMM_SELF, ckey, ierr)
  call c_seen(from, gone)
  call check(gone == BIG - 1, 'the C delete callback saw a pointer to the value')

  ! The predefined attributes are their values in Fortran.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, value, flag, ierr)
  call check(flag .and. value >= 32767, 'MPI_TAG_UB')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, int_value, flag, ierr)
  call check(flag .and. int_value == value, 'MPI_TAG_UB by MPI_ATTR_GET')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, value, flag, ierr)
  call check(flag .and. value == MPI_PROC_NULL, 'MPI_HOST')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, value, flag, ierr)
  call check(flag .and. (value == MPI_ANY_SOURCE .or. value == rank), 'MPI_IO')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, value, flag, ierr)
  call check(.not. flag .or. value == 0 .or. value == 1, 'MPI_WTIME_IS_GLOBAL')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, value, flag, ierr)
  call check(.not. flag .or. value >= size, 'MPI_UNIVERSE_SIZE')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, value, flag, ierr)
  call check(.not. flag .or. value >= 0, 'MPI_APPNUM')
  call MPI_Add_error_class(class, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, value, flag, ierr)
  call check(flag .and. value >= class, 'MPI_LASTUSEDCODE')
  call MPI_Win_get_attr(w, MPI_WIN_SIZE, value, flag, ierr)
  call check(flag .and. value == 80, 'MPI_WIN_SIZE')
  call MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, value, flag, ierr)
  call check(flag .and. value == 8, 'MPI_WIN_DISP_UNIT')
  call MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, value, flag, ierr)
  call check(flag .and. value == MPI_WIN_FLAVOR_CREATE, 'MPI_WIN_CREATE_FLAVOR')
  call MPI_Win_get_attr(w, MPI_WIN_MODEL, value, flag, ierr)
  call check(flag .and. (value == MPI_WIN_UNIFIED .or. value == MPI_WIN_SEPARATE), 'MPI_WIN_MODEL')
  call MPI_Get_address(buf, base, ierr)
  call MPI_Win_get_attr(w, MPI_WIN_BASE, value, flag, ierr)
  call check(flag .and. value == base, 'MPI_WIN_BASE')

  call MPI_Win_free(w, ierr)
  call MPI_Comm_free_keyval(ckey, ierr)
  call MPI_Comm_free_keyval(fkey, ierr)
  call MPI_Type_free_keyval(tkey, ierr)
  call MPI_Win_free_keyval(wkey, ierr)
  call MPI_Keyval_free(key1, ierr)
  call check(errs == 0, 'what C read')
  print '(a)', 'attr_lang ok'
  call MPI_Finalize(ierr)
contains
  include 'check.inc'
end program attr_lang
