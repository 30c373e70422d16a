// dbt: a model whose compiled code changed is a change of its own. The workspace's
// lineage.dbt_manifest is read at every collection pass; a model whose `checksum` differs from the
// one seen at the last pass is a model_change event on dbt://<package>/<model> (happened_at: the
// manifest's generated_at when it moved, else the time observed). Cursor "dbt:manifest:checksums"
// {unique_id: checksum}; the first pass records a baseline without events.
#pragma once

#include "base/clock.h"
#include "config/workspace.h"
#include "observe/changes/collector.h"
#include "store/state_store.h"

namespace dw::observe::changes {

// One pass over the workspace's dbt manifest (nothing when it names none). A manifest that cannot
// be read or parsed is an error in the returned pass ("dbt" platform), never a Status error; the
// store's error is returned as a Status.
Result<PlatformPass> CollectDbtManifestChanges(const config::Workspace& workspace, store::StateStore& store,
                                               const Clock& clock);

}  // namespace dw::observe::changes
