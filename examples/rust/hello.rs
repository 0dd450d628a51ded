use clump::spmd::Spmd;

fn main() -> Result<(), clump::Error> {
    let mut spmd = Spmd::init()?; // joins the job `clump run` started
    let (rank, size) = (spmd.rank(), spmd.size());
    // Handler 1 answers a request with handler 2 and the arguments plus one.
    spmd.ep.set_handler(1, |token, msg| {
        let next: Vec<u32> = msg.args.iter().map(|a| a + 1).collect();
        token.reply(2, &next).expect("reply");
    })?;
    spmd.ep.set_handler(2, move |_token, msg| {
        println!("rank {rank}: reply {:?}", msg.args);
    })?;
    spmd.barrier()?; // every rank has its handlers before anyone sends
    spmd.ep.request((rank + 1) % size, 1, &[1, 2, 3])?; // translation i reaches rank i
    spmd.drain()?; // poll until every request is answered
    spmd.barrier()?; // keep answering the others' requests until all are done
    Ok(())
}
