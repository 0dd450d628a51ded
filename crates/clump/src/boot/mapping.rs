//! PMI's `PMI_process_mapping`: which node each rank runs on.
//!
//! The value is `(vector,(N,C,R),...)`: each block puts R consecutive ranks on each of C
//! nodes numbered from N. When the blocks account for fewer ranks than the job has, the
//! pattern repeats (a cyclic distribution), as PMI's users read it.

/// The node of every rank of a job of `size`; `None` if `text` is not a mapping.
pub fn nodes_of_ranks(text: &str, size: u32) -> Option<Vec<u32>> {
    let inner = text.trim().strip_prefix("(vector,")?.strip_suffix(')')?;
    let mut blocks = Vec::new();
    for block in inner.split("),") {
        let block = block.trim().strip_prefix('(')?;
        let block = block.strip_suffix(')').unwrap_or(block);
        let nums: Vec<u32> = block
            .split(',')
            .map(|n| n.trim().parse().ok())
            .collect::<Option<_>>()?;
        let [first, count, per_node] = nums[..] else {
            return None;
        };
        blocks.push((first, count, per_node));
    }
    if blocks.iter().all(|&(_, c, r)| c == 0 || r == 0) {
        return None;
    }
    let mut nodes = Vec::with_capacity(size as usize);
    'fill: loop {
        for &(first, count, per_node) in &blocks {
            for node in first..first.checked_add(count)? {
                for _ in 0..per_node {
                    if nodes.len() == size as usize {
                        break 'fill;
                    }
                    nodes.push(node);
                }
            }
        }
    }
    Some(nodes)
}

#[cfg(test)]
mod tests {
    use super::nodes_of_ranks;

    #[test]
    fn blocks_and_cycles_are_read() {
        assert_eq!(nodes_of_ranks("(vector,(0,1,4))", 4), Some(vec![0; 4]));
        assert_eq!(
            nodes_of_ranks("(vector,(0,2,2))", 4),
            Some(vec![0, 0, 1, 1])
        );
        assert_eq!(
            nodes_of_ranks("(vector,(0,2,1))", 5),
            Some(vec![0, 1, 0, 1, 0])
        );
        assert_eq!(
            nodes_of_ranks("(vector,(0,1,3),(1,2,1))", 5),
            Some(vec![0, 0, 0, 1, 2])
        );
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            "",
            "(vector)",
            "(vector,(0,1))",
            "(vector,(0,0,0))",
            "(list,(0,1,1))",
            "(vector,(a,1,1))",
        ] {
            assert_eq!(nodes_of_ranks(bad, 2), None, "{bad:?}");
        }
    }
}
