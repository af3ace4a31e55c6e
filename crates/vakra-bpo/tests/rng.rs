//! Python's `random.Random(seed)`: the first draws and the 1000th, and the raw 32-bit outputs,
//! as CPython 3.11 gives them.

use vakra_bpo::rng::PyRandom;

#[test]
fn random_matches_cpython() {
    let cases: [(u64, [f64; 4], [u32; 2]); 5] = [
        (
            0,
            [
                0.8444218515250481,
                0.7579544029403025,
                0.420571580830845,
                0.9466893945947962,
            ],
            [3626764237, 1654615998],
        ),
        (
            1,
            [
                0.13436424411240122,
                0.8474337369372327,
                0.763774618976614,
                0.4116430517162146,
            ],
            [577090037, 2444712010],
        ),
        (
            42,
            [
                0.6394267984578837,
                0.025010755222666936,
                0.27502931836911926,
                0.09935462460613032,
            ],
            [2746317213, 478163327],
        ),
        (
            4294967301,
            [
                0.15727238718789782,
                0.2824866316461999,
                0.6044540318498407,
                0.267556667439095,
            ],
            [675479763, 2085189291],
        ),
        (
            12345678901234,
            [
                0.02504137575317178,
                0.14532691110186335,
                0.42619782335934575,
                0.8530449658814132,
            ],
            [107551873, 2403399316],
        ),
    ];
    for (seed, draws, words) in cases {
        let mut rng = PyRandom::new(seed);
        let first: Vec<f64> = (0..3).map(|_| rng.random()).collect();
        assert_eq!(first, draws[..3], "seed {seed}");
        for _ in 0..997 {
            rng.random();
        }
        assert_eq!(rng.random(), draws[3], "seed {seed}: 1000th draw");
        let mut rng = PyRandom::new(seed);
        assert_eq!(
            [rng.next_u32(), rng.next_u32()],
            words,
            "seed {seed}: getrandbits(32)"
        );
    }
}
