//! XPBD cloth with the avatar's per-vertex collision stage (Pelechano 2002 + a continuous test): contacts equal brute force on a walking figure's skirt, a running Fox's cape and the MakeHuman sportsuit on a walking body derived from it, the garment's self-collision pairs equal brute force and none are left after its stage, no vertex ends a step inside the skin, a fast limb does not tunnel through the cloth, and bad input gets typed errors.

#[path = "cloth/bad_input.rs"]
mod bad_input;
#[path = "cloth/cape.rs"]
mod cape;
use crate::common;
#[path = "cloth/fast_limb.rs"]
mod fast_limb;
#[path = "cloth/garment.rs"]
mod garment;
#[path = "cloth/oracle.rs"]
mod oracle;
#[path = "cloth/self_collision.rs"]
mod self_collision;
#[path = "cloth/skirt.rs"]
mod skirt;
