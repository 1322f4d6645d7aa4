//! The stack of a depth-first tree traversal: 64 entries inline, the rest on the heap, so traversals of any practical tree allocate nothing.

/// Entries kept inline: a depth-first traversal that pushes both children of a node holds at
/// most one pending sibling per level, so a tree of depth below 64 (a balanced tree of up to
/// 2^64 leaves) never spills.
const INLINE: usize = 64;

/// A LIFO stack of traversal entries: [`INLINE`] of them in place, deeper ones in a heap
/// vector that is only allocated if a traversal goes past that depth.
pub(super) struct NodeStack<T> {
    inline: [T; INLINE],
    len: usize,
    spill: Vec<T>,
}

impl<T: Copy + Default> NodeStack<T> {
    /// An empty stack (no allocation).
    pub fn new() -> Self {
        Self {
            inline: [T::default(); INLINE],
            len: 0,
            spill: Vec::new(),
        }
    }

    /// Pushes `x`.
    ///
    /// # Performance
    /// O(1); allocates only past [`INLINE`] entries.
    pub fn push(&mut self, x: T) {
        if self.len < INLINE && self.spill.is_empty() {
            self.inline[self.len] = x;
            self.len += 1;
        } else {
            self.spill.push(x);
        }
    }

    /// Pops the last entry pushed.
    ///
    /// # Performance
    /// O(1).
    pub fn pop(&mut self) -> Option<T> {
        self.spill.pop().or_else(|| {
            (self.len > 0).then(|| {
                self.len -= 1;
                self.inline[self.len]
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_reverse_push_order_past_the_inline_entries() {
        let mut stack = NodeStack::new();
        for round in 0..3u32 {
            let n = 10 + 50 * round;
            for i in 0..n {
                stack.push(i);
            }
            for i in (0..n).rev() {
                assert_eq!(stack.pop(), Some(i));
            }
            assert_eq!(stack.pop(), None);
        }
        // Interleaved pushes and pops around the inline boundary.
        let mut model = Vec::new();
        let mut state = 7u64;
        for _ in 0..5000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if !(state >> 33).is_multiple_of(3) || model.is_empty() {
                let x = (state >> 40) as u32;
                stack.push(x);
                model.push(x);
            } else {
                assert_eq!(stack.pop(), model.pop());
            }
        }
        while let Some(x) = model.pop() {
            assert_eq!(stack.pop(), Some(x));
        }
        assert_eq!(stack.pop(), None);
    }
}
