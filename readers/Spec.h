/// \file
/// The front end: reads machine specs (readers/MachineSpec.h) and collective
/// requests (readers/RequestSpec.h), in YAML or JSON (one schema, see
/// docs/spec.md), and validates them. Every problem is reported as
/// `file:line:col: error: <what was expected>`.
#ifndef COLLC_READERS_SPEC_H
#define COLLC_READERS_SPEC_H

#include "readers/MachineSpec.h"
#include "readers/RequestSpec.h"

#endif
