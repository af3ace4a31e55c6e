//! The capability-1 universe mapping: any text as the reference's YAML and as the converted
//! JSON form, and a round trip of whatever parses.

#![no_main]

use libfuzzer_sys::fuzz_target;
use vakra_chaining::Universes;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for parsed in [Universes::from_yaml(text), Universes::from_json(text)] {
        let Ok(universes) = parsed else {
            continue;
        };
        for domain in universes.domains() {
            for id in universes.ids_of_domain(domain) {
                let _ = universes.get(id).map(|u| u.toolset());
            }
        }
        let again = Universes::from_json(&universes.to_json()).expect("own JSON parses");
        assert_eq!(again.len(), universes.len());
    }
});
