//! User error classes, codes and strings (`MPI_Add_error_class`, `_code`, `_string` and
//! MPI 4.1's removals): values above `MPI_ERR_LASTCODE`, handed out in increasing order,
//! each code knowing its class. `MPI_LASTUSEDCODE` reads the largest given so far.

use super::abi::{MPI_ERR_ARG, MPI_ERR_LASTCODE, MPI_MAX_ERROR_STRING};
use super::buffers::text_arg;
use super::class_texts::text;
use super::export::{call, mpi_functions, out};
use std::collections::HashMap;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

/// The largest error class or code in use (what the `MPI_LASTUSEDCODE` attribute shows).
pub static LAST_USED: AtomicI32 = AtomicI32::new(MPI_ERR_LASTCODE);

/// Each user value: its class (itself for a class) and its string.
static DYNAMIC: Mutex<Option<HashMap<c_int, (c_int, String)>>> = Mutex::new(None);

fn with<T>(f: impl FnOnce(&mut HashMap<c_int, (c_int, String)>) -> T) -> T {
    // Never re-entered: the closures only touch the map.
    let mut guard = DYNAMIC.lock().unwrap_or_else(|p| p.into_inner());
    f(guard.get_or_insert_with(HashMap::new))
}

/// The class and string of a user error class or code.
pub fn lookup(code: c_int) -> Option<(c_int, String)> {
    with(|m| m.get(&code).cloned())
}

/// The class of any valid error code, predefined or not.
pub fn class_of(code: c_int) -> Option<c_int> {
    text(code)
        .map(|_| code)
        .or_else(|| lookup(code).map(|(c, _)| c))
}

fn is_class(class: c_int) -> bool {
    class_of(class) == Some(class)
}

/// A new value of class `class` (`None`: a new class).
fn add(class: Option<c_int>) -> c_int {
    let v = LAST_USED.fetch_add(1, Ordering::Relaxed) + 1;
    with(|m| m.insert(v, (class.unwrap_or(v), String::new())));
    v
}

/// Removes user value `v`, which must be a class (with no codes left) or a code as
/// `class` says.
fn remove(v: c_int, class: bool) -> Result<(), c_int> {
    with(|m| {
        let is_class = m.get(&v).map(|e| e.0 == v).ok_or(MPI_ERR_ARG)?;
        let has_codes = m.iter().any(|(&k, &(c, _))| c == v && k != v);
        if is_class != class || has_codes {
            return Err(MPI_ERR_ARG);
        }
        m.remove(&v);
        Ok(())
    })
}

mpi_functions! {
    fn Add_error_class(class: *mut c_int) -> c_int {
        call(|| {
            if class.is_null() {
                return Err(MPI_ERR_ARG);
            }
            out(class, add(None))
        })
    }

    fn Add_error_code(class: c_int, code: *mut c_int) -> c_int {
        call(|| {
            if code.is_null() || !is_class(class) {
                return Err(MPI_ERR_ARG);
            }
            out(code, add(Some(class)))
        })
    }

    fn Add_error_string(code: c_int, string: *const c_char) -> c_int {
        call(|| {
            let s = text_arg(string, MPI_MAX_ERROR_STRING).map_err(|(c, _)| c)?;
            with(|m| m.get_mut(&code).map(|e| e.1 = s)).ok_or(MPI_ERR_ARG)
        })
    }

    fn Remove_error_class(class: c_int) -> c_int {
        call(|| remove(class, true))
    }

    fn Remove_error_code(code: c_int) -> c_int {
        call(|| remove(code, false))
    }

    fn Remove_error_string(code: c_int) -> c_int {
        call(|| with(|m| m.get_mut(&code).map(|e| e.1.clear())).ok_or(MPI_ERR_ARG))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_codes_and_strings_are_added_found_and_removed() {
        let (mut class, mut code, mut plain) = (0, 0, 0);
        assert_eq!(MPI_Add_error_class(&mut class), 0);
        assert!(class > MPI_ERR_LASTCODE);
        assert_eq!(MPI_Add_error_code(class, &mut code), 0);
        assert_eq!(MPI_Add_error_code(MPI_ERR_ARG, &mut plain), 0);
        assert_eq!(
            (class_of(code), class_of(plain)),
            (Some(class), Some(MPI_ERR_ARG))
        );
        assert!(LAST_USED.load(Ordering::Relaxed) >= plain);
        assert_eq!(lookup(code).unwrap().1, "");
        assert_eq!(MPI_Add_error_string(code, c"mine".as_ptr()), 0);
        assert_eq!(lookup(code).unwrap().1, "mine");
        assert_eq!(
            MPI_Add_error_string(MPI_ERR_ARG, c"no".as_ptr()),
            MPI_ERR_ARG
        );
        assert_eq!(MPI_Add_error_code(code, &mut plain), MPI_ERR_ARG); // a code is no class
        assert_eq!(MPI_Remove_error_class(class), MPI_ERR_ARG); // it still has a code
        assert_eq!(MPI_Remove_error_string(code), 0);
        assert_eq!(MPI_Remove_error_code(code), 0);
        assert_eq!(MPI_Remove_error_class(class), 0);
        assert_eq!(class_of(code), None);
    }
}
