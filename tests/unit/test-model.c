// SPDX-License-Identifier: GPL-2.0
#include "unit.h"
Suite *make_model_suite(void)
{
	return suite_create("model");
}
