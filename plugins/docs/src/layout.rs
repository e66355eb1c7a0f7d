//! Where the lineage graph draws each node: a layered (Sugiyama-style)
//! layout computed when the site is built, so that the page only draws.
//!
//! JavaScript layout libraries place a 2,000-model module far too slowly
//! for a page that must be usable at once (dagre: 86 s, ELK layered with
//! its cheapest options: 14 s, on `bench/gen.py --models 2000`), because
//! they route every edge through each layer it crosses. This layout is
//! linear per sweep and takes milliseconds: ranks by longest path (a
//! source moved next to its first reader), then a few barycenter sweeps to
//! order each rank, then each node placed level with its neighbours where
//! the rank leaves room.

/// Horizontal space between two ranks.
const RANK_GAP: f64 = 90.0;
/// Vertical space between two nodes of a rank.
const NODE_GAP: f64 = 14.0;
/// Barycenter sweeps (down and up) ordering the ranks.
const SWEEPS: usize = 4;

/// A node to place: its size.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    pub width: f64,
    pub height: f64,
}

/// Centre of each node, for `sizes` and `edges` (`from` -> `to`, indices
/// into `sizes`). Deterministic: the same graph always gets the same
/// positions.
pub fn layered(sizes: &[Size], edges: &[(usize, usize)]) -> Vec<(f64, f64)> {
    let n = sizes.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        if a < n && b < n && a != b {
            succs[a].push(b);
            preds[b].push(a);
        }
    }
    let rank = ranks(&preds, &succs);
    let layers = order(&rank, &preds, &succs);
    place(sizes, &layers, &preds)
}

/// Longest path from the roots; then each root with readers moves to the
/// rank just before its first reader, so that a source read only deep in
/// the graph is drawn beside it. A cycle (never in a checked module) puts
/// its nodes on rank 0 rather than looping.
fn ranks(preds: &[Vec<usize>], succs: &[Vec<usize>]) -> Vec<usize> {
    let n = preds.len();
    let mut rank = vec![0usize; n];
    let mut waiting: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&v| waiting[v] == 0).rev().collect();
    while let Some(v) = ready.pop() {
        for &w in &succs[v] {
            rank[w] = rank[w].max(rank[v] + 1);
            waiting[w] -= 1;
            if waiting[w] == 0 {
                ready.push(w);
            }
        }
    }
    for v in 0..n {
        if preds[v].is_empty() {
            if let Some(first) = succs[v].iter().map(|&w| rank[w]).min() {
                rank[v] = first.saturating_sub(1);
            }
        }
    }
    rank
}

/// The nodes of each rank, top to bottom: first in the given order, then
/// sorted by the mean position of their neighbours in the ranks before
/// (down sweeps) or after (up sweeps).
fn order(rank: &[usize], preds: &[Vec<usize>], succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let ranks = rank.iter().max().map_or(0, |r| r + 1);
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); ranks];
    for (v, &r) in rank.iter().enumerate() {
        layers[r].push(v);
    }
    // Position of each node in its rank, scaled to 0..1 so that ranks of
    // different sizes compare.
    let mut pos = vec![0.0f64; rank.len()];
    let set_positions = |layer: &[usize], pos: &mut [f64]| {
        let len = layer.len().max(1) as f64;
        for (i, &v) in layer.iter().enumerate() {
            pos[v] = (i as f64 + 0.5) / len;
        }
    };
    for layer in &layers {
        set_positions(layer, &mut pos);
    }
    for _ in 0..SWEEPS {
        for down in [true, false] {
            let indices: Vec<usize> = if down {
                (1..ranks).collect()
            } else {
                (0..ranks.saturating_sub(1)).rev().collect()
            };
            for r in indices {
                let neighbours = if down { preds } else { succs };
                let key = |v: usize| -> f64 {
                    let ns = &neighbours[v];
                    if ns.is_empty() {
                        pos[v]
                    } else {
                        ns.iter().map(|&w| pos[w]).sum::<f64>() / ns.len() as f64
                    }
                };
                let mut keyed: Vec<(f64, usize)> = layers[r].iter().map(|&v| (key(v), v)).collect();
                // Stable, and total on floats: equal keys keep their order.
                keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
                layers[r] = keyed.into_iter().map(|(_, v)| v).collect();
                set_positions(&layers[r], &mut pos);
            }
        }
    }
    layers
}

/// Coordinates: ranks left to right, as wide as their widest node; in a
/// rank, each node as near the mean height of its predecessors as the
/// nodes above it allow, the rank then shifted to sit where it wants.
fn place(sizes: &[Size], layers: &[Vec<usize>], preds: &[Vec<usize>]) -> Vec<(f64, f64)> {
    let mut at = vec![(0.0f64, 0.0f64); sizes.len()];
    let mut x = 0.0;
    for layer in layers {
        let width = layer.iter().map(|&v| sizes[v].width).fold(0.0, f64::max);
        let column = x + width / 2.0;
        // Wanted centre of each node, then the highest centre it can take.
        let wanted: Vec<Option<f64>> = layer
            .iter()
            .map(|&v| {
                let placed: Vec<f64> = preds[v].iter().map(|&w| at[w].1).collect();
                (!placed.is_empty()).then(|| placed.iter().sum::<f64>() / placed.len() as f64)
            })
            .collect();
        let mut bottom = f64::NEG_INFINITY;
        let mut ys = Vec::with_capacity(layer.len());
        for (&v, want) in layer.iter().zip(&wanted) {
            let half = sizes[v].height / 2.0;
            let lowest = if bottom.is_finite() {
                bottom + NODE_GAP + half
            } else {
                f64::NEG_INFINITY
            };
            let y = match want {
                Some(w) => w.max(lowest),
                None if bottom.is_finite() => lowest,
                None => half,
            };
            bottom = y + half;
            ys.push(y);
        }
        // Pushing down only moves nodes below where they want to be: move
        // the whole rank back up by the mean excess.
        let excess: Vec<f64> = ys
            .iter()
            .zip(&wanted)
            .filter_map(|(y, w)| w.map(|w| y - w))
            .collect();
        let shift = if excess.is_empty() {
            0.0
        } else {
            excess.iter().sum::<f64>() / excess.len() as f64
        };
        for (&v, y) in layer.iter().zip(ys) {
            at[v] = (column, y - shift);
        }
        x += width + RANK_GAP;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxes(n: usize) -> Vec<Size> {
        vec![
            Size {
                width: 100.0,
                height: 30.0
            };
            n
        ]
    }

    #[test]
    fn edges_point_right_and_nodes_never_overlap() {
        // 0 -> 1 -> 2, 0 -> 2, 3 -> 2 (3 is a root read only at rank 2).
        let edges = [(0, 1), (1, 2), (0, 2), (3, 2)];
        let at = layered(&boxes(4), &edges);
        for (a, b) in edges {
            assert!(at[a].0 < at[b].0, "{a} -> {b}: {at:?}");
        }
        // The late root sits on the rank before its reader, with node 1.
        assert_eq!(at[3].0, at[1].0);
        assert!((at[3].1 - at[1].1).abs() >= 30.0 + NODE_GAP, "{at:?}");
    }

    #[test]
    fn a_chain_is_drawn_level() {
        let at = layered(&boxes(3), &[(0, 1), (1, 2)]);
        assert_eq!(at[0].1, at[1].1);
        assert_eq!(at[1].1, at[2].1);
    }

    #[test]
    fn barycenters_untangle_a_crossing() {
        // Roots 0, 1; 0 feeds 3 and 1 feeds 2: the second rank is ordered
        // 3 above 2, as its readers' roots are.
        let at = layered(&boxes(4), &[(0, 3), (1, 2)]);
        assert!(at[0].1 < at[1].1);
        assert!(at[3].1 < at[2].1, "{at:?}");
    }

    #[test]
    fn a_cycle_does_not_hang() {
        let at = layered(&boxes(2), &[(0, 1), (1, 0)]);
        assert_eq!(at.len(), 2);
    }
}
