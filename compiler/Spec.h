/// \file
/// The front end: reads machine specs (compiler/MachineSpec.h) and collective
/// requests (compiler/RequestSpec.h), in YAML or JSON (one schema, see
/// docs/spec.md), and validates them. Every problem is reported as
/// `file:line:col: error: <what was expected>`.
#ifndef COLLC_COMPILER_SPEC_H
#define COLLC_COMPILER_SPEC_H

#include "compiler/MachineSpec.h"
#include "compiler/RequestSpec.h"

#endif
