//! Running the handlers of the table, for whichever transport brought the message: a
//! request's handler (which may reply once through its token), a reply's or a get's
//! completion (which may not send), handler 0 for what came back. Both transports decode
//! what arrives into the same [`Message`] or [`Answer`] and hand it here.

use super::route::Requester;
use super::{EndpointCore, HandlerFn, LocalEvent};
use crate::error::ReturnReason;
use crate::message::{Kind, Message, Returned};
use crate::name::EndpointId;
use std::cell::Cell;
use std::rc::Rc;

/// Where the message a handler is running for came from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Origin {
    /// A request, with the way its answer goes back (the transport that brought it).
    Request(Requester),
    Reply { src: EndpointId },
    /// A completed get: no remote party.
    Local,
}

/// Handed to every handler: identifies the message and, for requests, is the only way
/// to reply (see `am/token.rs`).
pub struct Token<'a> {
    pub(crate) ep: &'a Rc<EndpointCore>,
    pub(crate) origin: Origin,
    pub(crate) replied: bool,
}

/// An answer to one of this endpoint's requests, as either transport decoded it; the
/// transport has returned its credits already.
pub(crate) enum Answer<'a> {
    /// Credits only: the request's handler did not reply.
    Credit,
    /// The request came back to its sender.
    Returned(Returned<'a>),
    Reply(Reply<'a>),
    /// A get's data landed (`landed`) at `offset` of the segment, or could not.
    GetDone {
        handler: u8,
        args: &'a [u32],
        offset: u64,
        len: usize,
        landed: bool,
    },
    /// Nothing a correct peer sends: reported to handler 0.
    Malformed {
        handler: u8,
        args: &'a [u32],
        offset: u64,
    },
}

/// A reply (or a get's completion) as its handler would see it. `payload` is `None` for
/// a long reply (or a get) whose bytes are not in the segment; `medium` is what came with
/// it (for handler 0 if it cannot run).
pub(crate) struct Reply<'a> {
    pub kind: Kind,
    pub handler: u8,
    pub args: &'a [u32],
    pub payload: Option<&'a [u8]>,
    pub offset: u64,
    pub medium: &'a [u8],
}

thread_local! {
    /// Twice the number of handlers running on this thread, plus 1 if the innermost is a
    /// reply handler: one cell, read and written once per handler.
    static HANDLERS: Cell<u32> = const { Cell::new(0) };
}

/// Whether the current thread is inside a handler.
pub(crate) fn in_handler() -> bool {
    HANDLERS.with(|h| h.get() >= 2)
}

/// Whether the handler the current thread runs is a reply handler, which sends nothing
/// (AM-II: what keeps bounded queues free of deadlock).
#[inline]
pub(crate) fn in_reply_handler() -> bool {
    HANDLERS.with(|h| h.get() & 1 == 1)
}

/// A handler's run: restores the state it found when it ends.
struct InHandler {
    outer: u32,
}
impl InHandler {
    fn enter(reply: bool) -> InHandler {
        let outer = HANDLERS.with(|h| h.replace(((h.get() >> 1) + 1) << 1 | u32::from(reply)));
        InHandler { outer }
    }
}
impl Drop for InHandler {
    fn drop(&mut self) {
        HANDLERS.with(|h| h.set(self.outer));
    }
}

impl EndpointCore {
    /// Runs the request handler `msg` names, whichever transport brought it; returns
    /// whether it replied, or why there was no handler to run.
    #[inline(always)]
    pub(crate) fn call_request_handler(
        self: &Rc<Self>,
        origin: Origin,
        msg: &Message<'_>,
    ) -> std::result::Result<bool, ReturnReason> {
        let handler = self.handler(msg.handler).ok_or(ReturnReason::BadHandler)?;
        Ok(self.run_handler(&*handler, origin, msg))
    }

    /// Installs (with `None`, removes) the handler at `index`. The table moves out of its
    /// part and back (a handler is not `Send`, see `part.rs`); the old handler is dropped
    /// after, outside the part, since its captures may reach this endpoint.
    pub(crate) fn set_handler_at(&self, index: usize, handler: Option<Rc<HandlerFn>>) {
        let mut table = self.tables.handlers.replace(Vec::new());
        let old = std::mem::replace(&mut table[index], handler);
        self.tables.handlers.replace(table);
        drop(old);
    }

    /// The handler installed at `index`, held for its run: it may replace itself. None at
    /// 0, handler 0's place.
    #[inline(always)]
    pub(crate) fn handler(&self, index: u8) -> Option<Rc<HandlerFn>> {
        match index {
            0 => None,
            h => self.tables.handlers.with(|t| t[h as usize].clone()),
        }
    }

    /// Runs `handler` for `msg` with a token for `origin`; returns whether it replied.
    #[inline(always)]
    pub(crate) fn run_handler(
        self: &Rc<Self>,
        handler: &HandlerFn,
        origin: Origin,
        msg: &Message<'_>,
    ) -> bool {
        let reply = matches!(origin, Origin::Reply { .. });
        let mut token = Token {
            ep: self,
            origin,
            replied: false,
        };
        let _depth = InHandler::enter(reply);
        handler(&mut token, msg);
        token.replied
    }

    /// Runs what an answer from `src` calls for. A reply or a get's completion that
    /// cannot run (no handler, or its payload fell outside the segment) is reported to
    /// handler 0 here: a reply cannot go back, that could deadlock.
    pub(crate) fn run_answer(self: &Rc<Self>, src: EndpointId, answer: Answer<'_>) {
        match answer {
            Answer::Credit => {}
            Answer::Returned(r) => self.deliver_returned(&r),
            Answer::Reply(reply) => self.call_reply_handler(Origin::Reply { src }, &reply),
            Answer::GetDone {
                handler,
                args,
                offset,
                len,
                landed,
            } => self.run_get_done(handler, args, offset, len, landed),
            Answer::Malformed {
                handler,
                args,
                offset,
            } => self.deliver_returned(&Returned {
                reason: ReturnReason::BadArgs,
                request: false,
                kind: Kind::Short,
                handler,
                args,
                payload: &[],
                offset,
                translation: None,
            }),
        }
    }

    /// Runs the handler of a reply (or of a get's completion), or reports to handler 0
    /// why it cannot run.
    #[inline(always)]
    pub(crate) fn call_reply_handler(self: &Rc<Self>, origin: Origin, reply: &Reply<'_>) {
        let &Reply {
            kind,
            handler: index,
            args,
            payload,
            offset,
            ..
        } = reply;
        match (self.handler(index), payload) {
            (Some(handler), Some(payload)) => {
                let msg = Message {
                    kind,
                    handler: index,
                    args,
                    payload,
                    offset,
                };
                self.run_handler(&*handler, origin, &msg);
            }
            (_, payload) => self.reply_not_run(reply, payload.is_none()),
        }
    }

    /// Reports to handler 0 a reply whose handler is missing, or whose payload fell
    /// outside the segment (`outside`). Out of line: the reply path stays short.
    #[cold]
    #[inline(never)]
    fn reply_not_run(&self, reply: &Reply<'_>, outside: bool) {
        self.deliver_returned(&Returned {
            reason: if outside {
                ReturnReason::BadSegmentOffset
            } else {
                ReturnReason::BadHandler
            },
            request: false,
            kind: reply.kind,
            handler: reply.handler,
            args: reply.args,
            payload: reply.medium,
            offset: reply.offset,
            translation: None,
        })
    }

    /// Runs the local handler of a get whose data has landed at `offset` (or, `landed`
    /// false, could not), or reports to handler 0 why it cannot run.
    fn run_get_done(
        self: &Rc<Self>,
        index: u8,
        args: &[u32],
        offset: u64,
        len: usize,
        landed: bool,
    ) {
        let segment = self.current_segment();
        let payload = segment
            .as_ref()
            .and_then(|s| s.bytes(offset, len as u64))
            .filter(|_| landed);
        let reply = Reply {
            kind: Kind::Get,
            handler: index,
            args,
            payload,
            offset,
            medium: &[],
        };
        self.call_reply_handler(Origin::Local, &reply);
    }

    pub(crate) fn handle_local(self: &Rc<Self>, event: LocalEvent) {
        match event {
            LocalEvent::Returned(r) => self.deliver_returned(&r.view()),
            LocalEvent::GetDone {
                handler,
                args,
                offset,
                len,
            } => self.run_get_done(handler, args.as_slice(), offset, len, true),
        }
    }

    pub(crate) fn deliver_returned(&self, r: &Returned<'_>) {
        self.count(|s| s.returned += 1);
        let handler = self.tables.on_return.with(|h| h.clone());
        match handler {
            Some(h) => {
                let _depth = InHandler::enter(false);
                h(r)
            }
            None => eprintln!(
                "clump: undeliverable {:?} {} to handler {} came back ({}); set a return handler to act on it",
                r.kind,
                if r.request { "request" } else { "reply" },
                r.handler,
                r.reason
            ),
        }
    }
}
