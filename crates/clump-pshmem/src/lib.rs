//! `#[pshmem::twin]` exports an OpenSHMEM routine `shmem_X` under two C names, as the
//! profiling interface of OpenSHMEM 1.5 asks: `pshmem_X` holds the
//! implementation and `shmem_X` calls it. A tool that defines its own `shmem_X` in the
//! program interposes on the library's, and its call to `pshmem_X` still reaches the
//! implementation. The attribute replaces `#[no_mangle]` on every routine, so the list of
//! pshmem_ names is the list of exported shmem_ names and the two cannot drift.
//!
//! Why not an alias: symbols from `global_asm!` (`.set`) or linker options are outside the
//! export list rustc hands the linker for a cdylib, so they stay local to libclump.so.

#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use syn::{parse_macro_input, spanned::Spanned, FnArg, ItemFn};

/// Put on an `extern "C" fn shmem_X(...)` in place of `#[no_mangle]`.
#[proc_macro_attribute]
pub fn twin(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let attr = proc_macro2::TokenStream::from(attr);
        return syn::Error::new(attr.span(), "#[pshmem::twin] takes no arguments")
            .to_compile_error()
            .into();
    }
    let f = parse_macro_input!(item as ItemFn);
    match expand(f) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(f: ItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let name = f.sig.ident.clone();
    if !name.to_string().starts_with("shmem_") {
        return Err(syn::Error::new(
            name.span(),
            "#[pshmem::twin] is for shmem_ routines",
        ));
    }
    if let Some(v) = &f.sig.variadic {
        return Err(syn::Error::new(
            v.span(),
            "a variadic routine cannot be forwarded",
        ));
    }
    let profiled = format_ident!("p{}", name);
    // The public name's parameters are plain a0, a1, … whatever patterns the
    // implementation binds, so that they can be passed on.
    let mut public = f.sig.clone();
    let mut args = Vec::new();
    for (i, input) in public.inputs.iter_mut().enumerate() {
        let FnArg::Typed(pt) = input else {
            return Err(syn::Error::new(input.span(), "a C routine has no self"));
        };
        let arg = format_ident!("a{i}");
        *pt.pat = syn::parse_quote!(#arg);
        args.push(arg);
    }
    let mut implementation = f;
    implementation.sig.ident = profiled.clone();
    let attrs = &implementation.attrs;
    let vis = &implementation.vis;
    Ok(quote! {
        #(#attrs)*
        #[no_mangle]
        #vis #public { #profiled(#(#args),*) }
        #[no_mangle]
        #implementation
    })
}
