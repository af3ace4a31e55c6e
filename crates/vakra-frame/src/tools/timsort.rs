//! numpy's generic stable argsort (`npy_atimsort`), comparison for comparison: for object
//! arrays the first comparison Python cannot do raises the `TypeError` the reference shows,
//! so which pair of values meets first has to be the same as in numpy.

/// `argsort(kind='stable')` of `n` items through `cmp(a, b)`, numpy's `OBJECT_compare`
/// (negative, zero or positive), which fails with the first Python error.
pub(super) fn argsort<E>(
    n: usize,
    cmp: impl FnMut(usize, usize) -> Result<i32, E>,
) -> Result<Vec<usize>, E> {
    let mut sorter = Sorter {
        tosort: (0..n).collect(),
        cmp,
        buffer: Vec::new(),
    };
    let minrun = min_run(n);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut l = 0;
    while l < n {
        let run = sorter.count_run(l, n, minrun)?;
        stack.push((l, run));
        sorter.try_collapse(&mut stack)?;
        l += run;
    }
    sorter.force_collapse(&mut stack)?;
    Ok(sorter.tosort)
}

/// `compute_min_run_short`.
fn min_run(mut num: usize) -> usize {
    let mut r = 0;
    while num > 16 {
        r |= num & 1;
        num >>= 1;
    }
    num + r
}

struct Sorter<F> {
    tosort: Vec<usize>,
    cmp: F,
    buffer: Vec<usize>,
}

impl<E, F: FnMut(usize, usize) -> Result<i32, E>> Sorter<F> {
    fn less(&mut self, a: usize, b: usize) -> Result<bool, E> {
        Ok((self.cmp)(a, b)? < 0)
    }

    fn count_run(&mut self, l: usize, num: usize, minrun: usize) -> Result<usize, E> {
        if num - l == 1 {
            return Ok(1);
        }
        let t = &self.tosort;
        let (a, b) = (t[l], t[l + 1]);
        let mut pi = l + 1;
        if (self.cmp)(a, b)? <= 0 {
            while pi < num - 1 {
                let (x, y) = (self.tosort[pi], self.tosort[pi + 1]);
                if (self.cmp)(x, y)? > 0 {
                    break;
                }
                pi += 1;
            }
        } else {
            while pi < num - 1 {
                let (x, y) = (self.tosort[pi + 1], self.tosort[pi]);
                if !self.less(x, y)? {
                    break;
                }
                pi += 1;
            }
            self.tosort[l..=pi].reverse();
        }
        pi += 1;
        let mut sz = pi - l;
        if sz < minrun {
            sz = if l + minrun < num { minrun } else { num - l };
            let pr = l + sz;
            while pi < pr {
                let vi = self.tosort[pi];
                let mut pj = pi;
                while l < pj {
                    let prev = self.tosort[pj - 1];
                    if !self.less(vi, prev)? {
                        break;
                    }
                    self.tosort[pj] = prev;
                    pj -= 1;
                }
                self.tosort[pj] = vi;
                pi += 1;
            }
        }
        Ok(sz)
    }

    /// `agallop_right`: how many items of the run at `start..start+size` are `<= key`.
    fn gallop_right(&mut self, start: usize, size: usize, key: usize) -> Result<usize, E> {
        if self.less(key, self.tosort[start])? {
            return Ok(0);
        }
        let (mut last_ofs, mut ofs) = (0usize, 1usize);
        loop {
            if size <= ofs {
                ofs = size;
                break;
            }
            if self.less(key, self.tosort[start + ofs])? {
                break;
            }
            last_ofs = ofs;
            ofs = (ofs << 1) + 1;
        }
        while last_ofs + 1 < ofs {
            let m = last_ofs + ((ofs - last_ofs) >> 1);
            if self.less(key, self.tosort[start + m])? {
                ofs = m;
            } else {
                last_ofs = m;
            }
        }
        Ok(ofs)
    }

    /// `agallop_left`: how many items of the run at `start..start+size` are `< key`.
    fn gallop_left(&mut self, start: usize, size: usize, key: usize) -> Result<usize, E> {
        if self.less(self.tosort[start + size - 1], key)? {
            return Ok(size);
        }
        let (mut last_ofs, mut ofs) = (0usize, 1usize);
        loop {
            if size <= ofs {
                ofs = size;
                break;
            }
            if self.less(self.tosort[start + size - ofs - 1], key)? {
                break;
            }
            last_ofs = ofs;
            ofs = (ofs << 1) + 1;
        }
        let mut l = size as isize - ofs as isize - 1;
        let mut r = size as isize - last_ofs as isize - 1;
        while l + 1 < r {
            let m = l + ((r - l) >> 1);
            if self.less(self.tosort[start + m as usize], key)? {
                l = m;
            } else {
                r = m;
            }
        }
        Ok(r as usize)
    }

    fn merge_at(&mut self, stack: &[(usize, usize)], at: usize) -> Result<(), E> {
        let (s1, mut l1) = stack[at];
        let (s2, l2) = stack[at + 1];
        let k = self.gallop_right(s1, l1, self.tosort[s2])?;
        if l1 == k {
            return Ok(());
        }
        let p1 = s1 + k;
        l1 -= k;
        let l2 = self.gallop_left(s2, l2, self.tosort[s2 - 1])?;
        if l2 < l1 {
            self.merge_right(p1, l1, s2, l2)
        } else {
            self.merge_left(p1, l1, s2, l2)
        }
    }

    fn merge_left(&mut self, p1: usize, l1: usize, p2: usize, l2: usize) -> Result<(), E> {
        self.buffer.clear();
        self.buffer.extend_from_slice(&self.tosort[p1..p1 + l1]);
        let end = p2 + l2;
        let (mut p1, mut p2, mut p3) = (p1, p2, 0usize);
        self.tosort[p1] = self.tosort[p2];
        p1 += 1;
        p2 += 1;
        while p1 < p2 && p2 < end {
            let (x, y) = (self.tosort[p2], self.buffer[p3]);
            if self.less(x, y)? {
                self.tosort[p1] = x;
                p2 += 1;
            } else {
                self.tosort[p1] = y;
                p3 += 1;
            }
            p1 += 1;
        }
        if p1 != p2 {
            let n = p2 - p1;
            self.tosort[p1..p2].copy_from_slice(&self.buffer[p3..p3 + n]);
        }
        Ok(())
    }

    fn merge_right(&mut self, p1: usize, l1: usize, p2: usize, l2: usize) -> Result<(), E> {
        self.buffer.clear();
        self.buffer.extend_from_slice(&self.tosort[p2..p2 + l2]);
        let start = p1 as isize - 1;
        let mut p1 = (p1 + l1 - 1) as isize;
        let mut p2 = (p2 + l2 - 1) as isize;
        let mut p3 = l2 as isize - 1;
        self.tosort[p2 as usize] = self.tosort[p1 as usize];
        p2 -= 1;
        p1 -= 1;
        while p1 < p2 && start < p1 {
            let (x, y) = (self.buffer[p3 as usize], self.tosort[p1 as usize]);
            if self.less(x, y)? {
                self.tosort[p2 as usize] = y;
                p1 -= 1;
            } else {
                self.tosort[p2 as usize] = x;
                p3 -= 1;
            }
            p2 -= 1;
        }
        if p1 != p2 {
            let ofs = (p2 - start) as usize;
            let from = (p3 - ofs as isize + 1) as usize;
            let to = (start + 1) as usize;
            self.tosort[to..to + ofs].copy_from_slice(&self.buffer[from..from + ofs]);
        }
        Ok(())
    }

    fn try_collapse(&mut self, stack: &mut Vec<(usize, usize)>) -> Result<(), E> {
        while stack.len() > 1 {
            let top = stack.len();
            let b = stack[top - 2].1;
            let c = stack[top - 1].1;
            if (top > 2 && stack[top - 3].1 <= b + c)
                || (top > 3 && stack[top - 4].1 <= stack[top - 3].1 + b)
            {
                let a = stack[top - 3].1;
                if a <= c {
                    self.merge_at(stack, top - 3)?;
                    stack[top - 3].1 += b;
                    stack.remove(top - 2);
                } else {
                    self.merge_at(stack, top - 2)?;
                    stack[top - 2].1 += c;
                    stack.pop();
                }
            } else if b <= c {
                self.merge_at(stack, top - 2)?;
                stack[top - 2].1 += c;
                stack.pop();
            } else {
                break;
            }
        }
        Ok(())
    }

    fn force_collapse(&mut self, stack: &mut Vec<(usize, usize)>) -> Result<(), E> {
        while stack.len() > 2 {
            let top = stack.len();
            if stack[top - 3].1 <= stack[top - 1].1 {
                self.merge_at(stack, top - 3)?;
                stack[top - 3].1 += stack[top - 2].1;
                stack.remove(top - 2);
            } else {
                self.merge_at(stack, top - 2)?;
                stack[top - 2].1 += stack[top - 1].1;
                stack.pop();
            }
        }
        if stack.len() > 1 {
            let top = stack.len();
            self.merge_at(stack, top - 2)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::argsort;

    /// On consistent orders the port must be a correct stable sort, whatever the run structure.
    #[test]
    fn sorts_stably_on_total_orders() {
        let mut seed = 7u64;
        for n in [0usize, 1, 2, 3, 15, 16, 17, 33, 64, 65, 200, 1000, 5000] {
            for modulus in [3u64, 50, 1 << 20] {
                let values: Vec<u64> = (0..n)
                    .map(|_| {
                        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                        (seed >> 33) % modulus
                    })
                    .collect();
                let order = argsort(n, |a, b| Ok::<i32, ()>(values[a].cmp(&values[b]) as i32))
                    .expect("no errors");
                let mut expected: Vec<usize> = (0..n).collect();
                expected.sort_by_key(|&i| values[i]);
                assert_eq!(order, expected, "n={n} modulus={modulus}");
            }
        }
    }

    #[test]
    fn stops_at_the_first_failing_comparison() {
        let mut calls = 0;
        let result = argsort(100, |_, _| {
            calls += 1;
            if calls == 5 { Err(calls) } else { Ok(-1) }
        });
        assert_eq!(result, Err(5));
    }
}
