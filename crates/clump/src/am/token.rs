//! Tokens and the reply verbs. A request handler may reply once through its token; a
//! reply handler may not send at all. The token knows which transport brought the
//! request (its origin's [`Requester`]), so replying is the one routing place for answers.

use super::endpoint::Endpoint;
use crate::endpoint::handlers::{Origin, Token};
use crate::error::{Error, Result};
use crate::message::{HandlerIndex, Kind, Outgoing};
use crate::name::EndpointId;
use crate::endpoint::route::Requester;
use crate::endpoint::transport::Transport;
use crate::transport::net::transport::Net;
use crate::transport::shm::transport::Shm;

impl Token<'_> {
    /// True in a request handler, false in a reply or local completion handler.
    pub fn is_request(&self) -> bool {
        matches!(self.origin, Origin::Request(_))
    }

    /// The endpoint that sent the message (`AM_GetSourceEndpoint`); `None` for a get's
    /// local completion.
    pub fn source(&self) -> Option<EndpointId> {
        match self.origin {
            Origin::Request(Requester::Shm(r)) => Some(r.src),
            Origin::Reply { src } => Some(src),
            Origin::Request(Requester::Net(r)) => Some(r.from.id),
            Origin::Local => None,
        }
    }

    /// The tag the sender carries (`AM_GetMsgTag`), for requests.
    pub fn source_tag(&self) -> Option<u64> {
        match self.origin {
            Origin::Request(Requester::Shm(r)) => Some(r.src_tag),
            Origin::Request(Requester::Net(r)) => Some(r.tag),
            _ => None,
        }
    }

    /// The endpoint the handler runs on (`AM_GetDestEndpoint`); it may send requests.
    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            core: self.ep.clone(),
        }
    }

    /// Replies with a short message.
    #[inline]
    pub fn reply(&mut self, handler: HandlerIndex, args: &[u32]) -> Result<()> {
        self.send_reply(Outgoing {
            kind: Kind::Short,
            handler,
            args,
            payload: &[],
            offset: 0,
        })
    }

    /// Replies with a medium message.
    pub fn reply_medium(
        &mut self,
        handler: HandlerIndex,
        args: &[u32],
        payload: &[u8],
    ) -> Result<()> {
        self.send_reply(Outgoing {
            kind: Kind::Medium,
            handler,
            args,
            payload,
            offset: 0,
        })
    }

    /// Replies with a long message written at `dest_offset` of the requester's segment.
    pub fn reply_long(
        &mut self,
        handler: HandlerIndex,
        args: &[u32],
        payload: &[u8],
        dest_offset: usize,
    ) -> Result<()> {
        self.send_reply(Outgoing {
            kind: Kind::Long,
            handler,
            args,
            payload,
            offset: dest_offset as u64,
        })
    }

    #[inline]
    fn send_reply(&mut self, o: Outgoing<'_>) -> Result<()> {
        if !self.is_request() {
            return Err(Error::ReplyFromReplyHandler);
        }
        if self.replied {
            return Err(Error::AlreadyReplied);
        }
        o.validate()?;
        self.replied = true;
        // The one routing place for answers: the way the request came.
        match &self.origin {
            Origin::Request(Requester::Shm(to)) => Shm::reply(self.ep, to, &o),
            Origin::Request(Requester::Net(to)) => Net::reply(self.ep, to, &o),
            Origin::Reply { .. } | Origin::Local => return Err(Error::ReplyFromReplyHandler),
        }
        Ok(())
    }
}
