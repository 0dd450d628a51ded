//! Messages that cannot be delivered come back to handler 0 with their arguments and the
//! right reason; rule breaking by handlers is reported as an error.

use crate::check::{pattern, poll_until, Failures};
use clump::spmd::Spmd;
use clump::{Error, Kind, ReturnReason, ReturnedMessage};
use std::cell::RefCell;
use std::rc::Rc;

type Returns = Rc<RefCell<Vec<ReturnedMessage>>>;

pub fn run() -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    let rank = spmd.rank();
    if spmd.size() != 2 {
        return Err("the errors scenario runs on 2 ranks".into());
    }
    let e = |r: clump::Result<()>| r.map_err(|e| e.to_string());
    let ep = spmd.ep.clone();
    e(ep.set_segment(4096))?;
    let fails = Failures::default();
    let returns: Returns = Rc::default();
    let r = returns.clone();
    e(ep.set_return_handler(move |x| r.borrow_mut().push(x.to_message())))?;
    // Rank 1's extra endpoint, freed before rank 0 sends to it.
    let spare = spmd
        .bundle
        .create_endpoint(ep.tag())
        .map_err(|e| e.to_string())?;
    let names = spmd
        .allgather(&spare.name().to_bytes())
        .map_err(|e| e.to_string())?;
    spare.free();
    let f = fails.clone();
    e(ep.set_handler(1, move |t, m| {
        t.reply(2, m.args).unwrap();
        f.expect(
            matches!(t.reply(2, m.args), Err(Error::AlreadyReplied)),
            || "second reply accepted".into(),
        );
    }))?;
    let reply_errors = Rc::new(RefCell::new(Vec::new()));
    let re = reply_errors.clone();
    e(ep.set_handler(2, move |t, _| {
        re.borrow_mut()
            .push(t.reply(2, &[]).err().map(|e| e.to_string()))
    }))?;
    e(ep.set_handler(3, |t, _| t.reply(201, &[5]).unwrap()))?;
    spmd.barrier().map_err(|e| e.to_string())?;

    if rank == 0 {
        let tag = ep.tag();
        let peer = ep.translation(1).unwrap().0;
        e(ep.map(2, peer, tag ^ 1))?;
        e(ep.map(3, clump::EndpointName::from_bytes(&names[1]).unwrap(), tag))?;
        e(ep.request(2, 1, &[11, 12]))?; // wrong tag
        e(ep.request(1, 200, &[21]))?; // no such handler
        e(ep.request_medium(1, 200, &[22], &pattern(0, 100, 1)))?; // no such handler, payload back
        e(ep.request_long(1, 1, &[31], &[0; 64], 4096 - 63))?; // one byte past the segment
        e(ep.get(1, 4, &[41], 4000, 200, 0))?; // past the remote segment
        e(ep.request(3, 1, &[51]))?; // freed endpoint
        e(ep.request(1, 1, &[61]))?; // fine: its reply handler tries to reply
        e(ep.request(1, 3, &[]))?; // its reply names a handler rank 0 lacks
        poll_until(&spmd, || {
            returns.borrow().len() == 7 && reply_errors.borrow().len() == 1
        })?;
        let got = returns.borrow();
        let find = |reason: ReturnReason, arg: Option<u32>| {
            got.iter()
                .find(|x| x.reason == reason && arg.is_none_or(|a| x.args().first() == Some(&a)))
                .cloned()
        };
        let expect =
            |what: &str, reason, arg: Option<u32>, check: &dyn Fn(&ReturnedMessage) -> bool| {
                let hit = find(reason, arg);
                fails.expect(hit.as_ref().is_some_and(check), || {
                    format!("{what}: got {got:?}")
                });
            };
        expect("bad tag", ReturnReason::BadTag, Some(11), &|x| {
            x.request && x.args() == [11, 12]
        });
        expect("bad handler", ReturnReason::BadHandler, Some(21), &|x| {
            x.request && x.handler == 200 && x.kind == Kind::Short
        });
        expect(
            "bad handler, medium",
            ReturnReason::BadHandler,
            Some(22),
            &|x| x.kind == Kind::Medium && x.payload == pattern(0, 100, 1),
        );
        expect(
            "long off the segment",
            ReturnReason::BadSegmentOffset,
            Some(31),
            &|x| x.kind == Kind::Long,
        );
        expect(
            "get off the segment",
            ReturnReason::BadSegmentOffset,
            Some(41),
            &|x| x.kind == Kind::Get,
        );
        // Over the network the freed endpoint's socket is closed: the request comes back
        // once its silence is judged (its process polls: the datagram was lost), as sent
        // with no word of whether it arrived.
        let gone = if find(ReturnReason::OutcomeUnknown, Some(51)).is_some() {
            ReturnReason::OutcomeUnknown
        } else {
            ReturnReason::EndpointGone
        };
        expect("freed endpoint", gone, Some(51), &|x| x.request);
        expect(
            "reply to a missing handler",
            ReturnReason::BadHandler,
            Some(5),
            &|x| !x.request && x.handler == 201,
        );
        let re = reply_errors.borrow();
        fails.expect(
            re[0]
                .as_deref()
                .is_some_and(|m| m.contains("reply handler")),
            || format!("reply from a reply handler: {re:?}"),
        );
        fails.expect(ep.outstanding() == 0, || {
            format!("{} requests still outstanding", ep.outstanding())
        });
    }
    spmd.barrier().map_err(|e| e.to_string())?;
    fails.into_result(&format!("rank {rank}"))?;
    Ok(format!("rank {rank}: errors ok"))
}
