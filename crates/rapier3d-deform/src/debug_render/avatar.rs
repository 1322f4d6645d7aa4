//! A skinned avatar's per-bone boxes as lines: the twelve edges of each box the frame's queries test (Pelechano 2002 §3.2.3, made conservative), optionally of each of its cells (the slabs of §3.2.2 and their sectors).

use rapier3d::math::Vector;
use rapier3d::pipeline::DebugColor;

use crate::avatar::{AvatarBoxes, AvatarQuery, PosedBox};
use crate::error::Result;

/// Draws the twelve edges of `b` ([`PosedBox::EDGES`] order).
///
/// # Performance
/// O(1).
pub(super) fn draw_box(
    b: &PosedBox,
    color: DebugColor,
    draw: &mut impl FnMut(Vector, Vector, DebugColor),
) {
    let corners = b.corners();
    for [i, j] in PosedBox::EDGES {
        draw(corners[i], corners[j], color);
    }
}

/// Draws every box of `avatar` as `query`'s frame tests it ([`AvatarQuery::posed_box`]), box by
/// box; with `cell_color`, each box's cells after it ([`AvatarQuery::posed_cells`]). Returns the
/// boxes drawn.
///
/// # Errors
/// What [`AvatarQuery::posed_box`] rejects (no frame begun with `avatar`).
///
/// # Performance
/// O(m) per box not yet bounded this frame; with cells, O(cells · m) plus posing the skin
/// vertices not yet posed.
pub(super) fn draw_avatar_boxes(
    avatar: &AvatarBoxes,
    query: &mut AvatarQuery,
    box_color: DebugColor,
    cell_color: Option<DebugColor>,
    cells: &mut Vec<PosedBox>,
    draw: &mut impl FnMut(Vector, Vector, DebugColor),
) -> Result<usize> {
    for index in 0..avatar.box_count() {
        let posed = query.posed_box(avatar, index)?;
        draw_box(&posed, box_color, draw);
        if let Some(color) = cell_color {
            query.posed_cells(avatar, index, cells)?;
            for cell in cells.iter() {
                draw_box(cell, color, draw);
            }
        }
    }
    Ok(avatar.box_count())
}
