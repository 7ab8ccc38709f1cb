//! One file per view. Every view reads the published frame and setup from
//! the context ([`crate::state::use_ctx`]); none does scheduler math.

pub mod controls;
pub mod eligibility;
pub mod explainer;
pub mod features;
pub mod lag;
pub mod legend;
pub mod plots;
pub mod scenario;
pub mod timeline;
pub mod topology;
pub mod traces;
pub mod tree;

pub use controls::Controls;
pub use eligibility::EligibilityView;
pub use explainer::Explainer;
pub use features::FeaturesPanel;
pub use lag::LagView;
pub use legend::TaskLegend;
pub use scenario::ScenarioPanel;
pub use timeline::TimelineView;
pub use topology::TopologyView;
pub use tree::TreeView;
